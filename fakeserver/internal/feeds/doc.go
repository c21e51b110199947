// Package feeds renders and reads podcast feeds for the fake podqa service.
//
// [Render] writes the RSS 2.0 document (with the iTunes namespace) of a feed
// the fake hosts itself. [Parse] reads an RSS or Atom document into a
// [Parsed] feed, and [Fetch] downloads a feed over HTTP and parses it. Both
// report failures as an [*Error] whose Kind tells an unreadable feed
// ([KindFetch]) from content that is not a feed ([KindParse]) and whose
// message is fit to be shown in an API error.
//
// # Episodes
//
// Only items with an audio enclosure become episodes: the first enclosure
// whose MIME type is audio/*, or, when an enclosure has no type at all, whose
// URL path ends in a common audio extension (.mp3, .m4a, .wav, ...). Other
// items are skipped silently; a feed without any such item parses to zero
// episodes, which is not an error.
//
// # Ordering rule
//
// [Parsed.Episodes] is newest first, so index 0 is the latest episode. The
// items are stable-sorted by publication instant, descending: items with the
// same instant keep their feed order, and items without a readable date keep
// their relative feed order and come after all dated items.
//
// # GUID rule
//
// An episode's GUID is the item's guid (RSS) or id (Atom), trimmed of
// surrounding white space; when that is empty it is the URL of the audio
// enclosure. Every episode therefore has a non-empty GUID. GUIDs are not
// de-duplicated.
package feeds
