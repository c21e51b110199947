package drift

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/getkin/kin-openapi/openapi3"
)

// maxAnswerDepth bounds the walk of an answer, whatever it nests.
const maxAnswerDepth = 32

// answerCheck holds one live answer to the fake's schema of it.
type answerCheck struct {
	d     differ
	where string
}

// check walks v (decoded with UseNumber) beside s: fields the contract lacks (additive),
// fields it requires that are missing, types that differ and null where the contract has no
// null (breaking), enum values it does not list (additive: v1 clients tolerate them).
func (ac answerCheck) check(path string, v any, s *openapi3.Schema, depth int) {
	if s == nil || depth > maxAnswerDepth {
		return
	}
	f := flatten(s)
	if v == nil {
		if !f.nullable && len(f.types) > 0 {
			ac.d.add(Breaking, ac.where, path, "null where the contract has none", "contract "+typeText(f.types))
		}
		return
	}
	got := jsonType(v)
	if len(f.types) > 0 && !typeFits(got, f.types) {
		ac.d.add(Breaking, ac.where, path, "type mismatch", "contract "+typeText(f.types)+", live "+got)
		return
	}
	if len(f.alternatives) > 0 && len(f.props) == 0 {
		// Each alternative is a type; the value fitting one is all the contract asks.
		return
	}
	switch val := v.(type) {
	case string:
		if len(f.enum) > 0 && !slices.Contains(f.enum, val) {
			ac.d.add(Additive, ac.where, path, "unknown enum value", val)
		}
	case map[string]any:
		if len(f.props) == 0 {
			return // an object of any fields
		}
		for _, name := range sortedKeys(val) {
			ps, ok := f.props[name]
			if !ok {
				if !f.additional {
					ac.d.add(Additive, ac.where, joinPath(path, name), "field the contract lacks", jsonType(val[name]))
				}
				continue
			}
			ac.check(joinPath(path, name), val[name], ps, depth+1)
		}
		for _, name := range sortedKeys(f.required) {
			if _, ok := val[name]; !ok {
				if _, known := f.props[name]; known {
					ac.d.add(Breaking, ac.where, joinPath(path, name), "field missing", "")
				}
			}
		}
	case []any:
		for i, el := range val {
			// One difference per path, not one per element: the index is left out.
			_ = i
			ac.check(path+"[]", el, f.items, depth+1)
		}
	}
}

func jsonType(v any) string {
	switch n := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if _, err := n.Int64(); err == nil {
			return "integer"
		}
		return "number"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return fmt.Sprintf("%T", v)
}

func typeFits(got string, types []string) bool {
	return slices.Contains(types, got) || got == "integer" && slices.Contains(types, "number")
}

// decodeAnswer decodes a JSON answer keeping numbers' text.
func decodeAnswer(b []byte) (any, error) {
	var v any
	dec := json.NewDecoder(bytesReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}
