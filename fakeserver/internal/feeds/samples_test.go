package feeds

// Realistic feed documents shared by the parse tests, the fuzz seeds and
// the benchmarks.

// sampleITunesRSS is a podcast feed with the iTunes namespace whose items
// are out of order and include posts without audio, non-audio enclosures,
// missing guids, missing dates and an enclosure without a type.
const sampleITunesRSS = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:atom="http://www.w3.org/2005/Atom">
  <channel>
    <title><![CDATA[Night & Day <Radio>]]></title>
    <link>https://nightday.example/</link>
    <atom:link href="https://nightday.example/feed.xml" rel="self" type="application/rss+xml"/>
    <description><![CDATA[<p>A show about <b>things</b>.</p>]]></description>
    <language>en-gb</language>
    <itunes:author>Night &amp; Day</itunes:author>
    <itunes:explicit>yes</itunes:explicit>
    <itunes:image href="https://nightday.example/art.jpg"/>
    <itunes:category text="Arts"/>
    <item>
      <title><![CDATA[Ep. 41 — "Quotes" & <Brackets>]]></title>
      <guid isPermaLink="false">nd-41</guid>
      <pubDate>Tue, 05 Mar 2024 23:30:00 -0500</pubDate>
      <enclosure url="https://cdn.example/nd/41.mp3?src=rss&amp;x=1" length="51234567" type="audio/mpeg"/>
      <itunes:duration>1:02:03</itunes:duration>
      <itunes:explicit>clean</itunes:explicit>
      <content:encoded><![CDATA[<p>Show notes</p>]]></content:encoded>
    </item>
    <item>
      <title>Blog post: we are hiring</title>
      <link>https://nightday.example/hiring</link>
      <pubDate>Sat, 09 Mar 2024 09:00:00 +0000</pubDate>
    </item>
    <item>
      <title>Ep. 42</title>
      <pubDate>Mon, 11 Mar 2024 10:00:00 GMT</pubDate>
      <enclosure url="https://cdn.example/nd/42.m4a" length="not-a-number" type="audio/x-m4a"/>
      <itunes:duration>45:30</itunes:duration>
    </item>
    <item>
      <title>Video extra</title>
      <guid>nd-video</guid>
      <pubDate>Sun, 10 Mar 2024 10:00:00 GMT</pubDate>
      <enclosure url="https://cdn.example/nd/extra.mp4" length="100" type="video/mp4"/>
    </item>
    <item>
      <title>Ep. 40</title>
      <guid isPermaLink="true">https://nightday.example/40</guid>
      <pubDate>Fri, 01 Mar 2024 12:00:00 +0000</pubDate>
      <enclosure url="https://cdn.example/nd/40.jpg" length="2000" type="image/jpeg"/>
      <enclosure url="https://cdn.example/nd/40.mp3" length="3000" type="audio/mpeg; charset=binary"/>
      <itunes:duration>3600</itunes:duration>
    </item>
    <item>
      <title>Ep. 41 (repeat)</title>
      <guid isPermaLink="false">nd-41-repeat</guid>
      <pubDate>Wed, 06 Mar 2024 04:30:00 +0000</pubDate>
      <enclosure url="https://cdn.example/nd/41r.mp3" length="1" type="audio/mpeg"/>
      <itunes:explicit>Explicit</itunes:explicit>
    </item>
    <item>
      <title>Bonus (undated)</title>
      <guid>nd-bonus</guid>
      <enclosure url="https://cdn.example/nd/bonus.MP3?sig=abc#t=10"/>
      <itunes:duration>12:34:56.5</itunes:duration>
    </item>
    <item>
      <title>Transcript only</title>
      <enclosure url="https://cdn.example/nd/notes.txt"/>
    </item>
    <item>
      <title>Trailer (bad date)</title>
      <guid>nd-trailer</guid>
      <pubDate>sometime last spring</pubDate>
      <enclosure url="https://cdn.example/nd/trailer.wav" length="10" type="audio/wav"/>
      <itunes:duration>soon</itunes:duration>
    </item>
  </channel>
</rss>
`

// sampleAtom is an Atom podcast feed whose audio is in enclosure links.
const sampleAtom = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">
  <title type="text">Atom Cast</title>
  <subtitle>Feeds, but Atom</subtitle>
  <link rel="alternate" type="text/html" href="https://atom.example/"/>
  <link rel="self" href="https://atom.example/feed.atom"/>
  <id>urn:uuid:60a76c80-d399-11d9-b93C-0003939e0af6</id>
  <updated>2024-02-02T10:00:00Z</updated>
  <itunes:explicit>no</itunes:explicit>
  <logo>https://atom.example/logo.png</logo>
  <entry>
    <title>Older episode</title>
    <id>urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a</id>
    <published>2024-01-01T00:30:00+01:00</published>
    <updated>2024-01-03T00:00:00Z</updated>
    <link rel="alternate" href="https://atom.example/older"/>
    <link rel="enclosure" type="audio/mpeg" length="1234" href="https://atom.example/older.mp3"/>
    <itunes:duration>600</itunes:duration>
    <itunes:explicit>true</itunes:explicit>
  </entry>
  <entry>
    <title>Newer episode</title>
    <id>urn:uuid:1225c695-cfb8-4ebb-bbbb-80da344efa6b</id>
    <updated>2024-02-01T09:00:00Z</updated>
    <link rel="enclosure" type="audio/ogg" href="https://atom.example/newer.ogg"/>
  </entry>
  <entry>
    <title>Text only</title>
    <id>urn:uuid:1225c695-cfb8-4ebb-cccc-80da344efa6c</id>
    <updated>2024-02-02T09:00:00Z</updated>
    <link rel="alternate" href="https://atom.example/text"/>
  </entry>
</feed>
`

// sampleNoAudio is a blog feed: readable, but without any audio episode.
const sampleNoAudio = `<?xml version="1.0"?>
<rss version="2.0">
  <channel>
    <title>Just a blog</title>
    <link>https://blog.example/</link>
    <description>Words</description>
    <item><title>Post 1</title><link>https://blog.example/1</link></item>
    <item><title>Post 2</title><enclosure url="https://blog.example/2.png" type="image/png" length="5"/></item>
  </channel>
</rss>
`

// sampleHTML is the kind of page a web site answers instead of a feed.
const sampleHTML = `<!DOCTYPE html>
<html lang="en"><head><title>Night &amp; Day</title>
<link rel="alternate" type="application/rss+xml" href="/feed.xml"></head>
<body><h1>Welcome</h1></body></html>
`

// sampleJSONFeed is a JSON Feed, which Parse does not accept.
const sampleJSONFeed = `{"version":"https://jsonfeed.org/version/1.1","title":"J","items":[{"id":"1","attachments":[{"url":"https://j.example/1.mp3","mime_type":"audio/mpeg"}]}]}`

// fuzzSeeds lists documents the fuzz target starts from.
var fuzzSeeds = []string{
	sampleITunesRSS, sampleAtom, sampleNoAudio, sampleHTML, sampleJSONFeed,
	"", "   ", "<rss", `<rss version="2.0"><channel><item><enclosure url="a.mp3"/></item></channel></rss>`,
	`<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"><channel><title>R</title></channel><item><title>x</title></item></rdf:RDF>`,
}
