// Package apigolden lists the exported API of a Go module, one line per exported declaration,
// for the golden files under .ci/api/ that make every change of a module's public surface show
// in review. It reads source only (go/parser, go/doc, go/printer), so it needs neither the
// module's dependencies nor go/packages.
//
// A line reads like those of the Go distribution's api/*.txt files:
//
//	pkg github.com/podqa/podqa-go/client, func New(string, ...Option) (*Client, error)
//	pkg github.com/podqa/podqa-go/client, method (*Client) BaseURL() string
//	pkg github.com/podqa/podqa-go/client, type RetryPolicy struct, MaxAttempts int
//
// Types are as written in the source (a parameter's names are dropped, a constant's value is
// its expression, with the iota it stands for when it uses one). The packages listed are those
// a user can import: not main packages, not those under an internal directory, not those of a
// nested module, not testdata.
package apigolden

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Module returns the sorted API lines of every importable package of the module in dir, whose
// module path is modulePath. Subdirectories holding their own go.mod are other modules and are
// skipped. A package that does not parse is an error.
func Module(dir, modulePath string) ([]string, error) {
	var lines []string
	if slices.Contains(strings.Split(modulePath, "/"), "internal") {
		return nil, nil // a module inside internal/ (the fake's proofs) exports nothing to users
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if p != dir {
			if name == "testdata" || name == "internal" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // a nested module has its own golden file
			}
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		importPath := modulePath
		if rel != "." {
			importPath = path.Join(modulePath, filepath.ToSlash(rel))
		}
		pkgLines, err := Package(p, importPath)
		if err != nil {
			return err
		}
		lines = append(lines, pkgLines...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(lines)
	return slices.Compact(lines), nil
}

// Package returns the sorted API lines of the package in dir, imported as importPath: none
// when dir holds no Go files for the default build context, or only a main package.
func Package(dir, importPath string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	pkgName := ""
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if ok, err := build.Default.MatchFile(dir, name); err != nil || !ok {
			continue // another platform's file, or one behind a build tag
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		if pkgName != "" && f.Name.Name != pkgName {
			return nil, fmt.Errorf("apigolden: %s holds packages %s and %s", dir, pkgName, f.Name.Name)
		}
		pkgName = f.Name.Name
		files = append(files, f)
	}
	if len(files) == 0 || pkgName == "main" {
		return nil, nil
	}
	w := writer{fset: fset, prefix: "pkg " + importPath + ", ", consts: map[string]string{}}
	// go/doc drops unexported specs from const blocks, after which the iota of a spec is no
	// longer its index: the constants are read before.
	for _, f := range files {
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
				w.constBlock(g)
			}
		}
	}
	dp, err := doc.NewFromFiles(fset, files, importPath)
	if err != nil {
		return nil, err
	}
	for _, v := range dp.Consts {
		w.values("const", v)
	}
	for _, v := range dp.Vars {
		w.values("var", v)
	}
	for _, f := range dp.Funcs {
		w.fn(f.Decl)
	}
	for _, t := range dp.Types {
		w.typ(t.Decl)
		for _, v := range t.Consts {
			w.values("const", v)
		}
		for _, v := range t.Vars {
			w.values("var", v)
		}
		for _, f := range t.Funcs {
			w.fn(f.Decl)
		}
		for _, f := range t.Methods {
			if f.Level > 0 {
				// Promoted from an unexported embedded type: its declaration names that type.
				w.add("method (" + f.Recv + ") " + f.Name + w.signature(f.Decl.Type))
				continue
			}
			w.fn(f.Decl)
		}
	}
	if w.err != nil {
		return nil, w.err
	}
	slices.Sort(w.lines)
	return w.lines, nil
}

// writer collects the lines of one package.
type writer struct {
	fset   *token.FileSet
	prefix string
	lines  []string
	err    error
	// consts are the lines of the exported constants, by name (constBlock).
	consts map[string]string
}

func (w *writer) add(s string) { w.lines = append(w.lines, w.prefix+s) }

// str prints n on one line.
func (w *writer) str(n ast.Node) string {
	var b bytes.Buffer
	if err := printer.Fprint(&b, w.fset, n); err != nil && w.err == nil {
		w.err = err
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// constBlock makes the lines of the exported constants of a const block. A spec without a
// type or value repeats the last ones, with its own iota.
func (w *writer) constBlock(d *ast.GenDecl) {
	var typ ast.Expr
	var vals []ast.Expr
	for iota, spec := range d.Specs {
		vs := spec.(*ast.ValueSpec)
		if vs.Type != nil || len(vs.Values) > 0 {
			typ, vals = vs.Type, vs.Values
		}
		for i, n := range vs.Names {
			if !n.IsExported() {
				continue
			}
			s := "const " + n.Name
			if typ != nil {
				s += " " + w.str(typ)
			}
			if i < len(vals) {
				s += " = " + w.str(vals[i])
				if usesIota(vals[i]) {
					s += " // iota = " + strconv.Itoa(iota)
				}
			}
			w.consts[n.Name] = s
		}
	}
}

// values writes the exported names of a const or var block.
func (w *writer) values(kind string, v *doc.Value) {
	for _, spec := range v.Decl.Specs {
		vs := spec.(*ast.ValueSpec)
		for i, n := range vs.Names {
			if !n.IsExported() {
				continue
			}
			if kind == "const" {
				w.add(w.consts[n.Name])
				continue
			}
			s := "var " + n.Name
			if vs.Type != nil {
				s += " " + w.str(vs.Type)
			}
			if i < len(vs.Values) {
				s += " = " + w.str(vs.Values[i])
			}
			w.add(s)
		}
	}
}

func usesIota(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == "iota" {
			found = true
		}
		return !found
	})
	return found
}

// fn writes a function or a method of an exported type.
func (w *writer) fn(d *ast.FuncDecl) {
	if !d.Name.IsExported() {
		return
	}
	if d.Recv == nil {
		w.add("func " + d.Name.Name + w.signature(d.Type))
		return
	}
	recv := d.Recv.List[0].Type
	base := recv
	if s, ok := base.(*ast.StarExpr); ok {
		base = s.X
	}
	if ix, ok := base.(*ast.IndexExpr); ok {
		base = ix.X
	} else if ix, ok := base.(*ast.IndexListExpr); ok {
		base = ix.X
	}
	if id, ok := base.(*ast.Ident); !ok || !id.IsExported() {
		return // a method of an unexported type, reachable only through an interface
	}
	w.add("method (" + w.str(recv) + ") " + d.Name.Name + w.signature(d.Type))
}

// signature prints a function type without the word func and without parameter names.
func (w *writer) signature(ft *ast.FuncType) string {
	s := ""
	if ft.TypeParams != nil {
		s += "[" + w.fields(ft.TypeParams, true) + "]"
	}
	s += "(" + w.fields(ft.Params, false) + ")"
	if ft.Results != nil && len(ft.Results.List) > 0 {
		r := w.fields(ft.Results, false)
		if len(ft.Results.List) == 1 && len(ft.Results.List[0].Names) <= 1 {
			s += " " + r
		} else {
			s += " (" + r + ")"
		}
	}
	return s
}

// fields prints a parameter list as its types, one per name; type parameters keep their
// names, which their constraints and the signature refer to.
func (w *writer) fields(fl *ast.FieldList, keepNames bool) string {
	var parts []string
	for _, f := range fl.List {
		t := w.str(f.Type)
		if keepNames {
			var names []string
			for _, n := range f.Names {
				names = append(names, n.Name)
			}
			parts = append(parts, strings.Join(names, ", ")+" "+t)
			continue
		}
		for range max(len(f.Names), 1) {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, ", ")
}

// typ writes an exported type, then its exported fields or interface methods one per line.
func (w *writer) typ(d *ast.GenDecl) {
	for _, spec := range d.Specs {
		ts := spec.(*ast.TypeSpec)
		if !ts.Name.IsExported() {
			continue
		}
		name := ts.Name.Name
		if ts.TypeParams != nil {
			name += "[" + w.fields(ts.TypeParams, true) + "]"
		}
		if ts.Assign.IsValid() {
			w.add("type " + name + " = " + w.str(ts.Type))
			continue
		}
		switch t := ts.Type.(type) {
		case *ast.StructType:
			head := "type " + name + " struct"
			w.add(head)
			for _, f := range t.Fields.List {
				ft := w.str(f.Type)
				if len(f.Names) == 0 {
					if embeddedExported(f.Type) {
						w.add(head + ", embedded " + ft)
					}
					continue
				}
				for _, n := range f.Names {
					if n.IsExported() {
						w.add(head + ", " + n.Name + " " + ft)
					}
				}
			}
		case *ast.InterfaceType:
			head := "type " + name + " interface"
			var names []string
			for _, m := range t.Methods.List {
				if len(m.Names) == 0 {
					e := w.str(m.Type)
					names = append(names, e)
					w.add(head + ", embedded " + e)
					continue
				}
				for _, n := range m.Names {
					if !n.IsExported() {
						names = append(names, "unexported methods")
						continue
					}
					names = append(names, n.Name)
					if ft, ok := m.Type.(*ast.FuncType); ok {
						w.add(head + ", " + n.Name + w.signature(ft))
					}
				}
			}
			if t.Incomplete {
				names = append(names, "unexported methods") // go/doc dropped them
			}
			slices.Sort(names)
			w.add(head + " { " + strings.Join(slices.Compact(names), ", ") + " }")
		default:
			w.add("type " + name + " " + w.str(ts.Type))
		}
	}
}

// embeddedExported reports whether an embedded field's type name is exported (its fields and
// methods are then part of the API).
func embeddedExported(e ast.Expr) bool {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.SelectorExpr:
			return t.Sel.IsExported()
		case *ast.Ident:
			return t.IsExported()
		default:
			return false
		}
	}
}

// ModulePath reads the module path from the go.mod in dir.
func ModulePath(dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "", err
	}
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`), nil
		}
	}
	return "", errors.New("apigolden: " + filepath.Join(dir, "go.mod") + " has no module line")
}

// WorkModules reads the directories of the modules a go.work file uses, relative to its
// directory, in the order written.
func WorkModules(goWork string) ([]string, error) {
	data, err := os.ReadFile(goWork)
	if err != nil {
		return nil, err
	}
	var dirs []string
	inUse := false
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		switch {
		case inUse && line == ")":
			inUse = false
		case inUse && line != "":
			dirs = append(dirs, strings.Trim(line, `"`))
		case line == "use (":
			inUse = true
		case strings.HasPrefix(line, "use "):
			dirs = append(dirs, strings.Trim(strings.TrimSpace(strings.TrimPrefix(line, "use ")), `"`))
		}
	}
	if len(dirs) == 0 {
		return nil, errors.New("apigolden: " + goWork + " uses no module")
	}
	return dirs, nil
}

// GoldenName is the name of a module's golden file under .ci/api/: the module's directory
// relative to the repository's root, its slashes as dashes, and podqa-go for the root.
func GoldenName(rel string) string {
	rel = strings.Trim(filepath.ToSlash(filepath.Clean(rel)), "/")
	if rel == "." || rel == "" {
		return "podqa-go.txt"
	}
	return strings.ReplaceAll(rel, "/", "-") + ".txt"
}
