package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"ragscope/retrieval/provider/chattask"
)

// Status says whether a hit was judged, and if not why.
type Status string

// The statuses of a Judgement.
const (
	// Judged: the grade is the model's.
	Judged Status = "judged"
	// Invalid: the answer was not a JSON object with a grade.
	Invalid Status = "invalid"
	// OutOfRange: the grade was not one of 0, 1, 2, 3.
	OutOfRange Status = "out_of_range"
	// Failed: the call failed (after the provider's retries).
	Failed Status = "failed"
	// Skipped: not sent, because an earlier call showed no call can work
	// (a refused key, an unknown model) or the run was cancelled.
	Skipped Status = "skipped"
)

// MaxReason bounds a reason, in runes; a longer one is cut with "…".
const MaxReason = 200

// parsed is one answer read: a grade and reason, or why not.
type parsed struct {
	grade  int
	reason string
	status Status
	detail string
}

// parseRelevance reads a relevance answer tolerantly: a JSON object
// alone, in a code fence, or amid text; "grade" in any case, as an
// integer, an integral number ("2.0") or a digit string ("2"). It never
// invents a grade: anything else is Invalid or OutOfRange, with why.
func parseRelevance(text string) parsed {
	obj, ok := chattask.FindObject(text)
	if !ok {
		return parsed{status: Invalid, detail: "the answer is not a JSON object: " + excerpt(text)}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(obj, &fields); err != nil {
		return parsed{status: Invalid, detail: "the answer is not a JSON object: " + excerpt(text)}
	}
	raw, ok := chattask.Field(fields, "grade")
	if !ok {
		return parsed{status: Invalid, detail: "the answer has no grade: " + excerpt(text)}
	}
	g, ok := integer(raw)
	if !ok {
		return parsed{status: Invalid, detail: "the grade is not a whole number: " + excerpt(string(raw))}
	}
	reason := ""
	if r, ok := chattask.Field(fields, "reason"); ok {
		_ = json.Unmarshal(r, &reason)
	}
	reason = oneLine(reason)
	if g < 0 || g > 3 {
		return parsed{status: OutOfRange, detail: fmt.Sprintf("grade %d is outside 0-3", g), reason: reason}
	}
	return parsed{grade: g, reason: reason, status: Judged}
}

// integer reads a whole number: 2, 2.0, "2".
func integer(raw json.RawMessage) (int, bool) {
	var f float64
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return 0, false
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, false
		}
		if f, err = strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
			return 0, false
		}
	}
	if f != math.Trunc(f) || math.IsInf(f, 0) || math.Abs(f) > 1e6 {
		return 0, false
	}
	return int(f), true
}

// oneLine folds whitespace and bounds s to MaxReason runes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > MaxReason {
		s = string([]rune(s)[:MaxReason-1]) + "…"
	}
	return s
}

// excerpt is a short single-line excerpt of an answer, for a status.
func excerpt(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > 80 {
		s = string([]rune(s)[:79]) + "…"
	}
	return strconv.Quote(s)
}
