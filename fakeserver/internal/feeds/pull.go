package feeds

import (
	"encoding/xml"
	"errors"
	"io"
	"net/url"
	"strings"
)

// event is the kind of token a puller is on.
type event int

const (
	evNone event = iota
	evStart
	evEnd
	evText
	evEndDocument
)

// xmlNamespace is the namespace encoding/xml gives the xml: prefix.
const xmlNamespace = "http://www.w3.org/XML/1998/namespace"

// errEndOfDocument reports a document that ends where an element was
// expected. encoding/xml reports an unclosed element itself, so in practice
// this is a document without a root element.
var errEndOfDocument = errors.New("the XML document ends before an element was found")

// puller walks an XML document one token at a time on top of a non-strict
// encoding/xml Decoder, keeping the namespace declarations and xml:base in
// scope. It reads documents the way the gofeed parser this package used to
// depend on does, so that feeds read the same.
type puller struct {
	d     *xml.Decoder
	ev    event
	start xml.StartElement // the current start tag, when ev is evStart
	name  string           // local name of the current start or end tag
	space string           // namespace of the current start or end tag
	text  string           // the current character data, when ev is evText

	scopes     []scope // one per open element, innermost last
	pendingPop bool    // the current end tag's scope is popped on the next move
	ended      bool
}

// scope is what one open element declares: its namespace prefixes and the
// xml:base in effect inside it.
type scope struct {
	decls []nsDecl
	base  *url.URL
}

type nsDecl struct{ prefix, uri string }

func newPuller(r io.Reader, charsets *charsetReader) *puller {
	d := xml.NewDecoder(r)
	// Real feeds contain unescaped ampersands, undeclared prefixes and
	// mismatched tags; the non-strict decoder reads them as gofeed did.
	d.Strict = false
	d.CharsetReader = charsets.open
	return &puller{d: d}
}

// next moves to the next start tag, end tag or character data, skipping
// comments, processing instructions and directives. At the end of the input
// it reports evEndDocument.
func (p *puller) next() (event, error) {
	if p.ended {
		return evEndDocument, nil
	}
	p.popIfPending()
	p.name, p.space, p.text, p.start = "", "", "", xml.StartElement{}
	for {
		tok, err := p.d.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				p.ev, p.ended = evEndDocument, true
				return p.ev, nil
			}
			return p.ev, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			p.start = t.Copy()
			p.name, p.space, p.ev = t.Name.Local, t.Name.Space, evStart
			p.push()
			return p.ev, nil
		case xml.EndElement:
			p.name, p.space, p.ev = t.Name.Local, t.Name.Space, evEnd
			p.pendingPop = true
			return p.ev, nil
		case xml.CharData:
			p.text, p.ev = string(t), evText
			return p.ev, nil
		}
	}
}

func (p *puller) popIfPending() {
	if p.pendingPop {
		p.pendingPop = false
		if n := len(p.scopes); n > 0 {
			p.scopes = p.scopes[:n-1]
		}
	}
}

// push opens the scope of the current start tag.
func (p *puller) push() {
	var s scope
	for _, a := range p.start.Attr {
		switch {
		case a.Name.Space == "xmlns":
			s.decls = append(s.decls, nsDecl{a.Name.Local, strings.TrimSpace(a.Value)})
		case a.Name.Space == "" && a.Name.Local == "xmlns":
			s.decls = append(s.decls, nsDecl{"", strings.TrimSpace(a.Value)})
		}
	}
	s.base = p.base()
	for _, a := range p.start.Attr {
		if a.Name.Local == "base" && a.Name.Space == xmlNamespace {
			// An unparsable xml:base is ignored: the parent's stays.
			if a.Value != "" {
				if u, err := url.Parse(a.Value); err == nil {
					if s.base != nil {
						u = s.base.ResolveReference(u)
					}
					s.base = u
				}
			}
			break
		}
	}
	p.scopes = append(p.scopes, s)
}

// base returns the xml:base in scope, or nil.
func (p *puller) base() *url.URL {
	if n := len(p.scopes); n > 0 {
		return p.scopes[n-1].base
	}
	return nil
}

// binding returns the URI prefix is bound to in scope.
func (p *puller) binding(prefix string) (string, bool) {
	for i := len(p.scopes) - 1; i >= 0; i-- {
		decls := p.scopes[i].decls
		for j := len(decls) - 1; j >= 0; j-- {
			if decls[j].prefix == prefix {
				return decls[j].uri, true
			}
		}
	}
	return "", false
}

// prefixFor returns the innermost prefix in scope bound to uri and not
// shadowed by a later declaration of the same prefix.
func (p *puller) prefixFor(uri string) (string, bool) {
	uri = strings.TrimSpace(uri)
	for i := len(p.scopes) - 1; i >= 0; i-- {
		decls := p.scopes[i].decls
		for j := len(decls) - 1; j >= 0; j-- {
			if decls[j].uri != uri {
				continue
			}
			if cur, ok := p.binding(decls[j].prefix); ok && cur == uri {
				return decls[j].prefix, true
			}
		}
	}
	return "", false
}

// attr returns the attribute name of the current start tag, preferring one
// without a namespace.
func (p *puller) attr(name string) string {
	var fallback string
	found := false
	for _, a := range p.start.Attr {
		if a.Name.Local == name {
			if a.Name.Space == "" {
				return a.Value
			}
			if !found {
				fallback, found = a.Value, true
			}
		}
	}
	return fallback
}

// nextTag moves to the next start or end tag, passing over character data.
// On a start tag it resolves the URL attributes (href, src, uri, scheme)
// against xml:base.
func (p *puller) nextTag() (event, error) {
	for {
		ev, err := p.next()
		if err != nil {
			return ev, err
		}
		switch ev {
		case evEnd:
			return ev, nil
		case evStart:
			for i, a := range p.start.Attr {
				switch strings.ToLower(a.Name.Local) {
				case "href", "src", "uri", "scheme":
					if u, err := resolveAgainstBase(p.base(), a.Value); err == nil && u != nil {
						p.start.Attr[i].Value = u.String()
					}
				}
			}
			return ev, nil
		case evEndDocument:
			return ev, errEndOfDocument
		}
	}
}

// eachChild calls handle for every child element of the current element,
// with its lower-case local name; handle consumes the child (read or skip).
// It returns on the current element's end tag.
func (p *puller) eachChild(handle func(name string) error) error {
	for {
		ev, err := p.nextTag()
		if err != nil {
			return err
		}
		if ev == evEnd {
			return nil
		}
		if err := handle(strings.ToLower(p.name)); err != nil {
			return err
		}
	}
}

// skip consumes the current element through its end tag. It counts depth
// instead of recursing, so deep nesting costs no stack.
func (p *puller) skip() error {
	depth := 0
	for {
		ev, err := p.next()
		if err != nil {
			return err
		}
		switch ev {
		case evStart:
			depth++
		case evEnd:
			if depth == 0 {
				return nil
			}
			depth--
		case evEndDocument:
			return errEndOfDocument
		}
	}
}

// innerXML consumes the current element and returns its content as written
// (after charset conversion), with its type and mode attributes.
func (p *puller) innerXML() (inner, typ, mode string, err error) {
	var v struct {
		Type     string `xml:"type,attr"`
		Mode     string `xml:"mode,attr"`
		InnerXML string `xml:",innerxml"`
	}
	start := p.start
	name, space := p.name, p.space
	if err := p.d.DecodeElement(&v, &start); err != nil {
		return "", "", "", err
	}
	p.ev, p.name, p.space, p.start, p.text = evEnd, name, space, xml.StartElement{}, ""
	p.pendingPop = true
	return v.InnerXML, v.Type, v.Mode, nil
}

// plainText consumes the current element and returns its text: the trimmed
// inner XML with CDATA sections unwrapped and entities (HTML's included)
// decoded.
func (p *puller) plainText() (string, error) {
	inner, _, _, err := p.innerXML()
	if err != nil {
		return "", err
	}
	return textOf(inner), nil
}

// extension is an element outside the feed format's own namespaces.
type extension struct {
	attrs map[string]string // by local name; the last one written wins
	value string            // the element's own character data, trimmed
}

// extensions holds extension elements by namespace prefix and local name.
type extensions map[string]map[string][]extension

// first returns the first element prefix:name, if any.
func (e extensions) first(prefix, name string) (extension, bool) {
	if l := e[prefix][name]; len(l) > 0 {
		return l[0], true
	}
	return extension{}, false
}

// readExtension consumes the current element into exts under its prefix.
func (p *puller) readExtension(exts extensions) error {
	prefix := p.prefixForNamespace(p.space)
	name := p.name
	x := extension{attrs: make(map[string]string, len(p.start.Attr))}
	for _, a := range p.start.Attr {
		x.attrs[a.Name.Local] = a.Value
	}
	var value strings.Builder
	depth := 0
	for depth >= 0 {
		ev, err := p.next()
		if err != nil {
			return err
		}
		switch ev {
		case evStart:
			depth++
		case evEnd:
			depth--
		case evText:
			if depth == 0 {
				value.WriteString(p.text)
			}
		case evEndDocument:
			return errEndOfDocument
		}
	}
	x.value = strings.TrimSpace(value.String())
	if exts[prefix] == nil {
		exts[prefix] = map[string][]extension{}
	}
	exts[prefix][name] = append(exts[prefix][name], x)
	return nil
}

// prefixForNamespace names an extension namespace: its well-known prefix
// (itunes, dc, atom, ...), else the prefix the document binds to it, else
// the namespace itself (which is the raw prefix when it was never bound).
func (p *puller) prefixForNamespace(space string) string {
	space = strings.TrimSpace(space)
	if prefix, ok := wellKnownNamespaces[space]; ok {
		return prefix
	}
	if prefix, ok := p.prefixFor(space); ok && prefix != "" {
		return prefix
	}
	return space
}

// inNamespace reports whether the current element is in one of spaces.
func (p *puller) inNamespace(spaces []string) bool {
	space := strings.TrimSpace(p.space)
	for _, s := range spaces {
		if space == s {
			return true
		}
	}
	return false
}

const (
	atom10Namespace   = "http://www.w3.org/2005/Atom"
	atom03Namespace   = "http://purl.org/atom/ns#"
	rdfNamespace      = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	rss10Namespace    = "http://purl.org/rss/1.0/"
	rss09Namespace    = "http://channel.netscape.com/rdf/simple/0.9/"
	rss09AltNamespace = "http://my.netscape.com/rdf/simple/0.9/"
	contentNamespace  = "http://purl.org/rss/1.0/modules/content/"
)

// wellKnownNamespaces gives extension namespaces their usual prefix whatever
// prefix the document binds them to. The list is gofeed's (from Python's
// feedparser); a namespace it lacks is known by the document's prefix, so
// iTunes tags count only under the prefix "itunes" unless written with the
// capitalised DTD URI listed here.
var wellKnownNamespaces = map[string]string{
	atom10Namespace: "atom",
	atom03Namespace: "atom03",

	"http://webns.net/mvcb/":                                         "admin",
	"http://purl.org/rss/1.0/modules/aggregation/":                   "ag",
	"http://purl.org/rss/1.0/modules/annotate/":                      "annotate",
	"http://media.tangent.org/rss/1.0/":                              "audio",
	"http://backend.userland.com/blogChannelModule":                  "blogChannel",
	"http://creativecommons.org/ns#license":                          "cc",
	"http://web.resource.org/cc/":                                    "cc",
	"http://cyber.law.harvard.edu/rss/creativeCommonsRssModule.html": "creativeCommons",
	"http://backend.userland.com/creativeCommonsRssModule":           "creativeCommons",
	"http://purl.org/rss/1.0/modules/company":                        "co",
	contentNamespace:                                       "content",
	"http://my.theinfo.org/changed/1.0/rss/":               "cp",
	"http://purl.org/dc/elements/1.1/":                     "dc",
	"http://purl.org/dc/terms/":                            "dcterms",
	"http://purl.org/rss/1.0/modules/email/":               "email",
	"http://purl.org/rss/1.0/modules/event/":               "ev",
	"http://rssnamespace.org/feedburner/ext/1.0":           "feedburner",
	"http://freshmeat.net/rss/fm/":                         "fm",
	"http://xmlns.com/foaf/0.1/":                           "foaf",
	"http://www.w3.org/2003/01/geo/wgs84_pos#":             "geo",
	"http://www.georss.org/georss":                         "georss",
	"http://www.opengis.net/gml":                           "gml",
	"http://postneo.com/icbm/":                             "icbm",
	"http://purl.org/rss/1.0/modules/image/":               "image",
	"http://www.itunes.com/DTDs/PodCast-1.0.dtd":           "itunes",
	"http://example.com/DTDs/PodCast-1.0.dtd":              "itunes",
	"http://purl.org/rss/1.0/modules/link/":                "l",
	"http://search.yahoo.com/mrss":                         "media",
	"http://search.yahoo.com/mrss/":                        "media",
	"http://madskills.com/public/xml/rss/module/pingback/": "pingback",
	"http://prismstandard.org/namespaces/1.2/basic/":       "prism",
	rdfNamespace:                                            "rdf",
	"http://www.w3.org/2000/01/rdf-schema#":                 "rdfs",
	"http://purl.org/rss/1.0/modules/reference/":            "ref",
	"http://purl.org/rss/1.0/modules/richequiv/":            "reqv",
	"http://purl.org/rss/1.0/modules/search/":               "search",
	"http://purl.org/rss/1.0/modules/slash/":                "slash",
	"http://schemas.xmlsoap.org/soap/envelope/":             "soap",
	"http://purl.org/rss/1.0/modules/servicestatus/":        "ss",
	"http://hacks.benhammersley.com/rss/streaming/":         "str",
	"http://purl.org/rss/1.0/modules/subscription/":         "sub",
	"http://purl.org/rss/1.0/modules/syndication/":          "sy",
	"http://schemas.pocketsoap.com/rss/myDescModule/":       "szf",
	"http://purl.org/rss/1.0/modules/taxonomy/":             "taxo",
	"http://purl.org/rss/1.0/modules/threading/":            "thr",
	"http://purl.org/rss/1.0/modules/textinput/":            "ti",
	"http://madskills.com/public/xml/rss/module/trackback/": "trackback",
	"http://wellformedweb.org/commentAPI/":                  "wfw",
	"http://purl.org/rss/1.0/modules/wiki/":                 "wiki",
	"http://www.w3.org/1999/xhtml":                          "xhtml",
	"http://www.w3.org/1999/xlink":                          "xlink",
	xmlNamespace:                                            "xml",
	"http://podlove.org/simple-chapters":                    "psc",
}

// resolveAgainstBase parses u (leading spaces dropped) and resolves it
// against base, whose path counts as a directory. A nil base returns u
// parsed, which normalises its escaping as gofeed did.
func resolveAgainstBase(base *url.URL, u string) (*url.URL, error) {
	rel, err := url.Parse(strings.TrimLeft(u, " "))
	if err != nil {
		return nil, err
	}
	if base == nil {
		return rel, nil
	}
	b := *base
	if b.Path != "" && u != "" && b.Path[len(b.Path)-1] != '/' {
		b.Path += "/"
	}
	return b.ResolveReference(rel), nil
}

// resolveIfBase resolves s against base when there is a base and s is not
// empty; otherwise, or when s is not a URL, it returns s unchanged.
func resolveIfBase(base *url.URL, s string) string {
	if base == nil || s == "" {
		return s
	}
	if u, err := resolveAgainstBase(base, s); err == nil && u != nil {
		return u.String()
	}
	return s
}
