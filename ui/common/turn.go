package common

import (
	"fmt"

	"ragscope/present"
	"ragscope/retrieval"
	"ragscope/retrieval/assess/judge"
	"ragscope/termsafe"
)

// Turn is one question and its result, like a chat turn.
type Turn struct {
	N      int
	Query  retrieval.Query
	Result retrieval.Result
	// Selected is the key of the result row selected when the turn was
	// last on show (itemKey), restored when it is brought back.
	Selected string
	// Answer is the turn's answer (nil: not asked).
	Answer *AnswerState
	// Judge is the judge's verdicts on its hits (key J; nil: not judged).
	Judge *JudgeState
	// Expect are the turn's expected sources (refs, as picked), and Diag
	// where they went and the ANN check (nil: not diagnosed yet).
	Expect []string
	Diag   *retrieval.Diagnosis
	// DiagSeq is the diagnosis of the turn whose reply counts.
	DiagSeq int
	// Marks are the author's judgements of its hits by chunk id (keys
	// m, M, u), saved with the turn as a golden case (S).
	Marks map[string]Mark
	// CaseFile is the golden file the turn's question was opened from (a
	// case of the eval view): S saves its marks back into that case.
	CaseFile string
}

// AnswerPhase is where a turn's answer is.
type AnswerPhase int

const (
	AnswerStreaming AnswerPhase = iota + 1
	AnswerDone
	AnswerCancelled
	AnswerFailed
)

// AnswerState is the answer of one turn: kept with the turn, drawn by the
// Answer pane and by the turn comparison.
type AnswerState struct {
	Phase AnswerPhase
	// sufficient is the turn's grounding verdict (for the warnings).
	Sufficient bool
	// b accumulates the answer while it streams; ans is the answer once
	// done (or what had arrived when cancelled or failed).
	Builder *retrieval.AnswerBuilder
	Final   retrieval.Answer
	Err     error
	// provider and model name the chat model asked.
	Provider, Model string
	// faith is the judge's check of the finished answer (key J; nil:
	// not checked).
	Faith *FaithState
}

// Answer is the answer so far.
func (s *AnswerState) Answer() retrieval.Answer {
	if s.Phase == AnswerStreaming && s.Builder != nil {
		a := s.Builder.Answer()
		a.Provider, a.Model = s.Provider, s.Model
		return a
	}
	return s.Final
}

// FaithState is the judge's check of one answer's claims, kept with the
// answer (a new answer starts unchecked).
type FaithState struct {
	Running bool
	Verdict *judge.Faithfulness
	Err     error
}

// FaithLine sums up an answer's check: "3 of 4 claims supported".
func FaithLine(fs *FaithState) string {
	switch {
	case fs.Running:
		return "checking the answer's claims…"
	case fs.Err != nil:
		return "answer not checked: " + ErrorText(fs.Err)
	case fs.Verdict == nil:
		return ""
	}
	f := fs.Verdict
	switch {
	case f.Status != judge.Judged:
		return "answer not checked (" + termsafe.Line(string(f.Status)) + "): " + termsafe.Line(f.Detail)
	case f.Share == nil:
		return "no claim of the answer judged (" + present.Count(len(f.Claims), "claim", "claims") + ")"
	}
	return fmt.Sprintf("%d of %d claims supported (%.0f%%)", f.Supported, f.Judged, 100**f.Share)
}
