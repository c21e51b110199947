package core

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Hit is one time a listed word or phrase was said: the shape inside the explicit_flag,
// unwanted_words and expected_words values. Times are milliseconds from the start.
type Hit struct {
	Start  int `json:"start"`
	Finish int `json:"finish"`
	// Description is the phrase in quotes and, when the transcription gave a confidence, the
	// confidence as a whole percentage capped at 90%, such as `"damn" (90%)`.
	Description string `json:"description"`
	// Confidence is the transcript line's confidence (0 to 1); absent when it has none.
	Confidence *float64 `json:"confidence,omitempty"`
}

// maxShownConfidence caps the percentage a hit's description shows.
const maxShownConfidence = 90

// shownPercent is the confidence as the description shows it: rounded to the nearest whole
// percent, capped at 90.
func shownPercent(confidence float64) int {
	return min(int(math.Round(confidence*100)), maxShownConfidence)
}

// counts says whether a hit counts toward failing explicit_flag: when its description shows
// 75% or more, or when it has no confidence.
func (h Hit) counts() bool {
	return h.Confidence == nil || shownPercent(*h.Confidence) >= 75
}

// profanities are the words the fake's explicit-content detection listens for.
var profanities = []string{
	"fuck", "fucks", "fucking", "fucked", "fucker", "motherfucker", "shit", "shits", "shitty",
	"bullshit", "bitch", "bastard", "asshole", "cunt", "damn", "goddamn", "dick", "piss",
	"pissed", "crap", "hell",
}

// token is a word of a transcript line: its lower-case form and where it sits in the line, in
// runes.
type token struct {
	word       string
	start, end int
}

// tokenize splits text into words: runs of letters, digits and apostrophes (typographic ones
// read as '), with apostrophes at a word's edges dropped, lower-cased.
func tokenize(text string) []token {
	var out []token
	var b strings.Builder
	start, i := -1, 0
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := b.String()
		lead := len(w) - len(strings.TrimLeft(w, "'"))
		trimmed := strings.Trim(w, "'")
		if trimmed != "" {
			s := start + lead
			out = append(out, token{word: trimmed, start: s, end: s + utf8.RuneCountInString(trimmed)})
		}
		b.Reset()
		start = -1
	}
	for _, r := range text {
		if r == '\u2019' || r == '\u2018' {
			r = '\''
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' {
			if start < 0 {
				start = i
			}
			b.WriteRune(unicode.ToLower(r))
		} else {
			flush(i)
		}
		i++
	}
	flush(i)
	return out
}

// phraseWords is a listed phrase as words; empty when it has none.
func phraseWords(phrase string) []string {
	toks := tokenize(phrase)
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = t.word
	}
	return out
}

// heardLine is a transcript line split into words once, for all the checks that search it.
type heardLine struct {
	TranscriptLine
	toks  []token
	runes int
}

func tokenizeLines(lines []TranscriptLine) []heardLine {
	out := make([]heardLine, len(lines))
	for i, l := range lines {
		out[i] = heardLine{TranscriptLine: l, toks: tokenize(l.Text), runes: utf8.RuneCountInString(l.Text)}
	}
	return out
}

// findHits finds every time one of phrases was said in lines: whole words, any case, within
// one line. A hit's times are placed inside its line in proportion to where the phrase sits in
// the line's text. Hits are ordered by start, then by the phrases' order.
func findHits(lines []heardLine, phrases []string) []Hit {
	hits := []Hit{}
	listed := make([][]string, len(phrases))
	for i, p := range phrases {
		listed[i] = phraseWords(p)
	}
	for _, l := range lines {
		toks, runes := l.toks, l.runes
		at := func(pos int) int {
			if runes == 0 {
				return l.Start
			}
			return l.Start + int(int64(l.End-l.Start)*int64(pos)/int64(runes))
		}
		for _, words := range listed {
			if len(words) == 0 {
				continue
			}
			for i := 0; i+len(words) <= len(toks); i++ {
				match := true
				for j, w := range words {
					if toks[i+j].word != w {
						match = false
						break
					}
				}
				if !match {
					continue
				}
				h := Hit{
					Start: at(toks[i].start), Finish: at(toks[i+len(words)-1].end),
					Description: fmt.Sprintf("%q", strings.Join(words, " ")),
				}
				if l.Confidence != nil {
					c := *l.Confidence
					h.Confidence = &c
					h.Description += fmt.Sprintf(" (%d%%)", shownPercent(c))
				}
				hits = append(hits, h)
			}
		}
	}
	slices.SortStableFunc(hits, func(a, b Hit) int { return a.Start - b.Start })
	return hits
}
