package feeds

import (
	"strings"
	"time"
)

// rawFeed is what the RSS and Atom readers take from a document, before the
// rules of [Parsed] (audio enclosures, order, GUID) apply.
type rawFeed struct {
	title, link string
	image       string // the RSS image URL, else the Atom logo, else its icon
	exts        extensions
	items       []rawItem
}

type rawItem struct {
	title      string
	guid       string
	enclosures []rawEnclosure
	// published is the publication instant and publishedRaw the text it
	// was read from (or, when there is no such text, the update date's).
	published    *time.Time
	publishedRaw string
	exts         extensions
}

type rawEnclosure struct{ url, length, typ string }

// findRoot moves to the document's root element.
func (p *puller) findRoot() error {
	for {
		ev, err := p.next()
		if err != nil {
			return err
		}
		switch ev {
		case evStart:
			return nil
		case evEndDocument:
			return errEndOfDocument
		}
	}
}

// rssNamespaces are the namespaces of RSS's own elements; elements in any
// other namespace are extensions. "rss" and "rdf" are prefixes a document
// used without declaring them.
var rssNamespaces = []string{"", "rss", "rdf", rdfNamespace, rss10Namespace, rss09Namespace, rss09AltNamespace}

// readRSS reads an RSS 0.9x, 1.0 (RDF) or 2.0 document from its root element.
func readRSS(p *puller) (*rawFeed, error) {
	native := rssNamespaces
	// Some feeds put a made-up default namespace on <rss>, which all their
	// elements then inherit: treat it as RSS's own unless it is a known
	// extension namespace.
	if space := strings.TrimSpace(p.space); space != "" {
		if _, known := wellKnownNamespaces[space]; !known {
			native = append([]string{space}, rssNamespaces...)
		}
	}
	var (
		channel   *rawFeed
		rootItems []rawItem
		rootImage *string
	)
	err := p.eachChild(func(name string) error {
		if !p.inNamespace(native) {
			return p.skip()
		}
		switch name {
		case "channel":
			c, err := readChannel(p, native)
			channel = c
			return err
		case "item":
			it, err := readRSSItem(p, native)
			if err == nil {
				rootItems = append(rootItems, it)
			}
			return err
		case "textinput":
			return p.readTextChildren("title", "description", "name", "link")
		case "image":
			u, err := readRSSImage(p)
			rootImage = &u
			return err
		}
		return p.skip()
	})
	if err != nil {
		return nil, err
	}
	if channel == nil {
		channel = &rawFeed{}
	}
	channel.items = append(channel.items, rootItems...)
	if rootImage != nil {
		channel.image = *rootImage
	}
	return channel, nil
}

// readTextChildren consumes the current element, reading the listed
// children as text (which is then not needed) and skipping the others.
func (p *puller) readTextChildren(names ...string) error {
	return p.eachChild(func(name string) error {
		for _, n := range names {
			if n == name {
				_, err := p.plainText()
				return err
			}
		}
		return p.skip()
	})
}

func readRSSImage(p *puller) (string, error) {
	var u string
	err := p.eachChild(func(name string) error {
		switch name {
		case "url":
			base := p.base()
			s, err := p.plainText()
			u = resolveIfBase(base, s)
			return err
		case "title", "link", "width", "height", "description":
			_, err := p.plainText()
			return err
		}
		return p.skip()
	})
	return u, err
}

// readRSSLink reads a <link>: its text, else its href, resolved against
// xml:base.
func readRSSLink(p *puller) (string, error) {
	base := p.base()
	href := p.attr("href")
	s, err := p.plainText()
	if err != nil {
		return "", err
	}
	if s == "" && href != "" {
		s = href
	}
	return resolveIfBase(base, s), nil
}

func readChannel(p *puller, native []string) (*rawFeed, error) {
	f := &rawFeed{exts: extensions{}}
	var image *string
	err := p.eachChild(func(name string) error {
		if !p.inNamespace(native) {
			return p.readExtension(f.exts)
		}
		var err error
		switch name {
		case "title":
			f.title, err = p.plainText()
		case "link":
			f.link, err = readRSSLink(p)
		case "description", "language", "copyright", "managingeditor", "webmaster", "pubdate",
			"lastbuilddate", "generator", "docs", "ttl", "rating", "category":
			_, err = p.plainText()
		case "skiphours":
			err = p.readTextChildren("hour")
		case "skipdays":
			err = p.readTextChildren("day")
		case "textinput":
			err = p.readTextChildren("title", "description", "name", "link")
		case "item":
			var it rawItem
			if it, err = readRSSItem(p, native); err == nil {
				f.items = append(f.items, it)
			}
		case "image":
			var u string
			u, err = readRSSImage(p)
			image = &u
		default:
			err = p.skip()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if f.title == "" {
		if dc, ok := f.exts.first("dc", "title"); ok {
			f.title = dc.value
		}
	}
	if f.link == "" {
		f.link = atomAlternateLink(f.exts)
	}
	if image != nil {
		f.image = *image
	}
	return f, nil
}

// atomPrefixes are the prefixes Atom elements inside RSS are found under.
var atomPrefixes = []string{"atom", "atom10", "atom03"}

// atomAlternateLink returns the href of an atom:link to the site (rel
// alternate or none) inside RSS, or "".
func atomAlternateLink(exts extensions) string {
	for _, prefix := range atomPrefixes {
		for _, l := range exts[prefix]["link"] {
			if rel := l.attrs["rel"]; rel == "" || rel == "alternate" {
				return l.attrs["href"]
			}
		}
	}
	return ""
}

// atomValue returns the text of the first Atom element name inside RSS.
func atomValue(exts extensions, name string) string {
	for _, prefix := range atomPrefixes {
		if x, ok := exts.first(prefix, name); ok {
			return x.value
		}
	}
	return ""
}

func readRSSItem(p *puller, native []string) (rawItem, error) {
	it := rawItem{exts: extensions{}}
	var pubDate string
	var pubDateParsed *time.Time
	err := p.eachChild(func(name string) error {
		if name == "encoded" && p.prefixForNamespace(p.space) == "content" {
			_, err := p.plainText()
			return err
		}
		if !p.inNamespace(native) {
			return p.readExtension(it.exts)
		}
		var err error
		switch name {
		case "title":
			it.title, err = p.plainText()
		case "guid":
			it.guid, err = p.plainText()
		case "pubdate":
			if pubDate, err = p.plainText(); err == nil {
				if t, derr := parseDate(pubDate); derr == nil {
					t = t.UTC()
					pubDateParsed = &t
				}
			}
		case "link":
			_, err = readRSSLink(p)
		case "enclosure":
			it.enclosures = append(it.enclosures, rawEnclosure{url: p.attr("url"), length: p.attr("length"), typ: p.attr("type")})
			err = p.skip()
		default:
			_, err = p.plainText()
		}
		return err
	})
	if err != nil {
		return rawItem{}, err
	}
	if it.title == "" {
		if dc, ok := it.exts.first("dc", "title"); ok {
			it.title = dc.value
		}
	}
	// The publication date: pubDate, else dc:date, else atom:published; the
	// update date: dc:date, else atom:updated.
	dcDate, hasDCDate := it.exts.first("dc", "date")
	switch {
	case pubDate != "":
		it.publishedRaw = pubDate
	case hasDCDate:
		it.publishedRaw = dcDate.value
	default:
		it.publishedRaw = atomValue(it.exts, "published")
	}
	if it.publishedRaw == "" {
		it.publishedRaw = dcDate.value
		if it.publishedRaw == "" {
			it.publishedRaw = atomValue(it.exts, "updated")
		}
	}
	it.published = pubDateParsed
	if it.published == nil {
		text := dcDate.value
		if text == "" {
			text = atomValue(it.exts, "published")
		}
		if t, err := parseDate(text); err == nil {
			it.published = &t
		}
	}
	return it, nil
}

// atomNamespaces are the namespaces of Atom's own elements.
var atomNamespaces = []string{"", atom10Namespace, atom03Namespace}

// readAtomText consumes an Atom text construct; the URI-valued ones (id,
// icon, logo, uri, url) are resolved against xml:base.
func (p *puller) readAtomText() (string, error) {
	base := p.base()
	inner, typ, mode, err := p.innerXML()
	if err != nil {
		return "", err
	}
	s := atomText(inner, typ, mode)
	switch strings.ToLower(p.name) {
	case "icon", "id", "logo", "uri", "url":
		if u, err := resolveAgainstBase(base, s); err == nil && u != nil {
			s = u.String()
		}
	}
	return s, nil
}

type atomLink struct{ href, rel, typ, length string }

func readAtomLink(p *puller) (atomLink, error) {
	l := atomLink{href: p.attr("href"), rel: p.attr("rel"), typ: p.attr("type"), length: p.attr("length")}
	if l.rel == "" {
		l.rel = "alternate"
	}
	return l, p.skip()
}

// readAtom reads an Atom 1.0 or 0.3 document from its root element.
func readAtom(p *puller) (*rawFeed, error) {
	f := &rawFeed{exts: extensions{}}
	var logo, icon string
	haveLink := false
	err := p.eachChild(func(name string) error {
		if !p.inNamespace(atomNamespaces) {
			return p.readExtension(f.exts)
		}
		var err error
		switch name {
		case "title":
			f.title, err = p.readAtomText()
		case "logo":
			logo, err = p.readAtomText()
		case "icon":
			icon, err = p.readAtomText()
		case "link":
			var l atomLink
			if l, err = readAtomLink(p); err == nil && !haveLink && l.rel == "alternate" {
				f.link, haveLink = l.href, true
			}
		case "entry":
			var it rawItem
			if it, err = readAtomEntry(p); err == nil {
				f.items = append(f.items, it)
			}
		case "id", "updated", "modified", "subtitle", "tagline", "generator", "rights", "copyright":
			_, err = p.readAtomText()
		case "author", "contributor":
			err = p.readTextChildren("name", "email", "uri", "url", "homepage")
		default:
			err = p.skip()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	f.image = logo
	if f.image == "" {
		f.image = icon
	}
	return f, nil
}

func readAtomEntry(p *puller) (rawItem, error) {
	it := rawItem{exts: extensions{}}
	var published, updated string
	var publishedAt, updatedAt *time.Time
	utc := func(s string) *time.Time {
		if t, err := parseDate(s); err == nil {
			t = t.UTC()
			return &t
		}
		return nil
	}
	err := p.eachChild(func(name string) error {
		if !p.inNamespace(atomNamespaces) {
			return p.readExtension(it.exts)
		}
		var err error
		switch name {
		case "title":
			it.title, err = p.readAtomText()
		case "id":
			it.guid, err = p.readAtomText()
		case "published", "issued":
			if published, err = p.readAtomText(); err == nil {
				publishedAt = utc(published)
			}
		case "updated", "modified":
			if updated, err = p.readAtomText(); err == nil {
				updatedAt = utc(updated)
			}
		case "link":
			var l atomLink
			if l, err = readAtomLink(p); err == nil && l.rel == "enclosure" {
				it.enclosures = append(it.enclosures, rawEnclosure{url: l.href, length: l.length, typ: l.typ})
			}
		case "rights", "copyright", "summary", "content":
			_, err = p.readAtomText()
		case "author", "contributor":
			err = p.readTextChildren("name", "email", "uri", "url", "homepage")
		case "source":
			err = readAtomSource(p)
		default:
			err = p.skip()
		}
		return err
	})
	if err != nil {
		return rawItem{}, err
	}
	it.publishedRaw, it.published = published, publishedAt
	if it.publishedRaw == "" {
		it.publishedRaw = updated
	}
	if it.published == nil {
		it.published = updatedAt
	}
	return it, nil
}

// readAtomSource consumes an entry's <source>, which Parse does not use.
func readAtomSource(p *puller) error {
	ignored := extensions{}
	return p.eachChild(func(name string) error {
		if !p.inNamespace(atomNamespaces) {
			return p.readExtension(ignored)
		}
		switch name {
		case "title", "id", "updated", "modified", "subtitle", "tagline", "generator", "icon", "logo", "rights", "copyright":
			_, err := p.readAtomText()
			return err
		case "author", "contributor":
			return p.readTextChildren("name", "email", "uri", "url", "homepage")
		}
		return p.skip()
	})
}
