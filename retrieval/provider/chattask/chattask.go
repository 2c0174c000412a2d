// Package chattask runs batches of chat-model tasks (judging hits,
// writing and checking golden questions): a pool of calls a few at a time
// that stops on an error no call can get past or when the chat model
// fails call after call (a circuit breaker), the answer of one call
// read into a bounded string, a memory in front of the on-disk cache, and
// the tolerant reading of a structured (JSON) answer.
package chattask

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"ragscope/retrieval"
	"ragscope/retrieval/provider/chatcache"
)

// MaxAnswer bounds the answer text kept of one call, in bytes (the rest
// is read, not kept).
const MaxAnswer = 16 << 10

// MaxFailuresInARow is the number of calls of a Run that may fail in a row
// with the chat model unavailable (5xx or 429 after the provider's
// retries, no connection, a timeout, an invalid answer) before the Run
// stops sending: past it, the model is taken to be down and the other
// items fail at once instead of each waiting out its retries. A refused
// key or setting stops a Run at the first failure (IsFatal).
const MaxFailuresInARow = 3

// Task is what Run does for each of n items; each function writes only
// item i's own result.
type Task struct {
	// Noun names one item in messages ("hit", "section"; "item" when
	// empty); an s makes it plural.
	Noun string
	// Cached fills item i from the cache and reports whether it could.
	Cached func(i int) bool
	// Ask makes item i's call; ok reports a valid answer.
	Ask func(ctx context.Context, i int) (ok bool, u retrieval.Usage, err error)
	// Skip marks item i not sent, and why.
	Skip func(i int, why string)
}

// Counts count what a Run cost.
type Counts struct {
	// Calls is the number of calls made (cache misses sent).
	Calls int
	// Cached is the number of items filled from the cache.
	Cached int
	// Failed is the number of items left without a valid answer (a failed
	// call, an answer out of the schema, an item skipped).
	Failed int
	// Usage is the calls' token use.
	Usage retrieval.Usage
}

// Run runs t over n items: the cached ones first, then the calls,
// concurrency at a time (at least 1). An error matching retrieval.ErrAuth
// or retrieval.ErrConfig (a refused key, an unknown model), or ctx
// ending, stops it: the items not yet sent are skipped and the error
// returned. So does the chat model failing MaxFailuresInARow calls in a
// row with no success between (the calls t.Ask makes through Ask with the
// context it is given are counted, each as it ends): the calls in flight
// are cancelled, the items not finished are skipped, and the error is a
// *DownError wrapping the last failure. Items finished before are kept.
// progress, when set, is called after each item.
func Run(ctx context.Context, concurrency, n int, progress func(done, total int), t Task) (Counts, error) {
	r := &run{task: t, total: n, progress: progress}
	var todo []int
	for i := range n {
		if t.Cached(i) {
			r.count(false, true, true, retrieval.Usage{})
		} else {
			todo = append(todo, i)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r.cancel = cancel
	b := &breaker{limit: MaxFailuresInARow, trip: r.stop}
	askCtx := context.WithValue(ctx, breakerKey{}, b)
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(max(concurrency, 1), len(todo)); w++ {
		wg.Go(func() {
			for i := range next {
				r.ask(ctx, askCtx, b, i)
			}
		})
	}
	for _, i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
	if r.fatal == nil && ctx.Err() != nil {
		r.fatal = ctx.Err()
	}
	return r.st, r.stoppedBy()
}

// run is the state one Run's workers share.
type run struct {
	task     Task
	total    int
	progress func(done, total int)
	// cancel cancels the calls in flight and stops the rest.
	cancel context.CancelFunc

	mu       sync.Mutex
	st       Counts
	fatal    error // what stopped the run; nil while none did
	done     int
	notTried int
}

// ask asks the task about item i, unless ctx is done (the run stopped):
// then the item is skipped. A fatal error stops the run; a call the
// breaker cut off (not sent, or cancelled in flight) is not tried,
// whatever it answered.
func (r *run) ask(ctx, askCtx context.Context, b *breaker, i int) {
	if ctx.Err() != nil {
		r.skip(ctx, i)
		r.count(false, false, false, retrieval.Usage{})
		return
	}
	ok, u, err := r.task.Ask(askCtx, i)
	if err != nil && ctx.Err() == nil && IsFatal(err) {
		r.stop(err)
	}
	if err != nil && b.down() != nil && (errors.Is(err, errNotSent) || errors.Is(err, context.Canceled)) {
		r.skip(ctx, i)
	}
	r.count(!errors.Is(err, errNotSent), ok, false, u)
}

// count counts an item finished: called (its call's usage u counts),
// answered well or not, from the cache or not; and reports progress.
func (r *run) count(called, ok, cached bool, u retrieval.Usage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if called {
		r.st.Calls++
		r.st.Usage.InputTokens += u.InputTokens
		r.st.Usage.OutputTokens += u.OutputTokens
	}
	if cached {
		r.st.Cached++
	}
	if !ok {
		r.st.Failed++
	}
	r.done++
	if r.progress != nil {
		r.progress(r.done, r.total)
	}
}

// stop ends the run with err (the first error that stops it is kept).
func (r *run) stop(err error) {
	r.mu.Lock()
	if r.fatal == nil {
		r.fatal = err
	}
	r.mu.Unlock()
	r.cancel()
}

// skip tells the task item i was not tried, and why.
func (r *run) skip(ctx context.Context, i int) {
	r.mu.Lock()
	why := SkipReason(ctx, r.fatal)
	r.notTried++
	r.mu.Unlock()
	r.task.Skip(i, why)
}

// stoppedBy is the error Run returns: what stopped it, a *DownError
// completed with the items not tried and the task's noun.
func (r *run) stoppedBy() error {
	var down *DownError
	if !errors.As(r.fatal, &down) {
		return r.fatal
	}
	noun := r.task.Noun
	if noun == "" {
		noun = "item"
	}
	return &DownError{Failures: down.Failures, Err: down.Err, NotTried: r.notTried, Noun: noun}
}

// DownError is a Run stopped because the chat model failed Failures
// calls in a row: Err is the last failure (its class, retrieval's
// ErrUnavailable, is the DownError's), NotTried the number of items left
// without an answer because of the stop.
type DownError struct {
	Failures int
	Err      error
	NotTried int
	// Noun names one item ("hit"); "" while the Run is still going (no
	// count yet).
	Noun string
}

// Error says how many calls failed, the last one's cause, and, once the
// Run is over, how many items were not tried: "the chat model failed 3
// times in a row: …; the other 136 hits were not tried".
func (e *DownError) Error() string {
	msg := fmt.Sprintf("the chat model failed %d times in a row: %s", e.Failures, strings.TrimRight(oneLine(e.Err.Error()), ". "))
	if e.Noun == "" {
		return msg
	}
	if e.NotTried == 1 {
		return fmt.Sprintf("%s; the other %s was not tried", msg, e.Noun)
	}
	return fmt.Sprintf("%s; the other %d %ss were not tried", msg, e.NotTried, e.Noun)
}

// Unwrap is the last failure.
func (e *DownError) Unwrap() error { return e.Err }

// errNotSent marks a call Ask did not send because the Run's breaker had
// tripped.
var errNotSent = errors.New("not sent")

// breaker counts a Run's calls that failed in a row with the chat model
// unavailable and trips once limit did; it is safe for concurrent use.
type breaker struct {
	limit int
	trip  func(error) // called once, with the *DownError

	mu     sync.Mutex
	inARow int
	open   *DownError
}

// breakerKey is the context key of the Run's breaker (Ask reads it).
type breakerKey struct{}

// down is the breaker's error once it tripped; nil before.
func (b *breaker) down() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.open == nil {
		return nil
	}
	return b.open
}

// record counts a call's outcome: a success resets the count; a failure
// that says the model is unavailable adds to it. A cancelled call, one
// made after ctx ended, or another failure (a refused key stops the Run
// on its own) changes nothing.
func (b *breaker) record(ctx context.Context, err error) {
	if ctx.Err() != nil || (err != nil && (errors.Is(err, context.Canceled) || IsFatal(err) ||
		!(errors.Is(err, retrieval.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded)))) {
		return
	}
	b.mu.Lock()
	if err == nil {
		if b.open == nil {
			b.inARow = 0
		}
		b.mu.Unlock()
		return
	}
	b.inARow++
	var tripped *DownError
	if b.open == nil && b.inARow >= b.limit {
		b.open = &DownError{Failures: b.inARow, Err: err}
		tripped = b.open
	}
	b.mu.Unlock()
	if tripped != nil {
		b.trip(tripped)
	}
}

// IsFatal reports whether err stops a Run: no call can get past it (a
// refused key: retrieval.ErrAuth; an unknown model or a bad setting:
// retrieval.ErrConfig).
func IsFatal(err error) bool {
	return errors.Is(err, retrieval.ErrAuth) || errors.Is(err, retrieval.ErrConfig)
}

// SkipReason says why an item was not sent: fatal stopped the run, or ctx
// ended.
func SkipReason(ctx context.Context, fatal error) string {
	switch {
	case errors.As(fatal, new(*DownError)):
		return "not sent: " + oneLine(fatal.Error())
	case fatal != nil:
		return "not sent after an earlier call failed: " + oneLine(fatal.Error())
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "the run's time ran out"
	}
	return "the run was cancelled"
}

// Ask sends p to gen and returns the answer's text (its first MaxAnswer
// bytes) and the call's token use. Under a Run (ctx is the one Task.Ask
// was given) the call counts towards the Run's breaker, and once it has
// tripped Ask sends nothing and fails at once, wrapping its *DownError.
func Ask(ctx context.Context, gen retrieval.Generator, p retrieval.Prompt) (string, retrieval.Usage, error) {
	b, _ := ctx.Value(breakerKey{}).(*breaker)
	if b != nil {
		if err := b.down(); err != nil {
			return "", retrieval.Usage{}, fmt.Errorf("%w: %w", errNotSent, err)
		}
	}
	text, usage, err := ask(ctx, gen, p)
	if b != nil {
		b.record(ctx, err)
	}
	return text, usage, err
}

// ask is one call of Ask.
func ask(ctx context.Context, gen retrieval.Generator, p retrieval.Prompt) (string, retrieval.Usage, error) {
	var (
		text  strings.Builder
		usage retrieval.Usage
	)
	err := gen.Stream(ctx, p, func(d retrieval.Delta) {
		if room := MaxAnswer - text.Len(); room > 0 {
			text.WriteString(d.Text[:min(len(d.Text), room)])
		}
		if d.Usage != nil {
			usage = *d.Usage
		}
	})
	return text.String(), usage, err
}

// oneLine is s with its runs of white space made one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Memo is a cache with the entries this process read or wrote kept in
// memory, so that counting the misses and then running reads the disk
// once. A nil Memo keeps nothing; it is safe for concurrent use.
type Memo struct {
	cache *chatcache.Cache
	m     sync.Map
}

// NewMemo returns a Memo in front of cache (nil: nothing is kept).
func NewMemo(cache *chatcache.Cache) *Memo { return &Memo{cache: cache} }

// Get is key's entry, from memory or disk.
func (m *Memo) Get(key string) ([]byte, bool) {
	if m == nil {
		return nil, false
	}
	if v, ok := m.m.Load(key); ok {
		return v.([]byte), true
	}
	b, ok := m.cache.Get(key)
	if ok {
		m.m.Store(key, b)
	}
	return b, ok
}

// Put stores a valid answer in memory and on disk (a cache that cannot be
// written costs a call next time, nothing more). Without a cache it keeps
// nothing.
func (m *Memo) Put(key string, b []byte) {
	if m == nil || m.cache == nil {
		return
	}
	m.m.Store(key, b)
	_ = m.cache.Put(key, b)
}

// FindObject is the JSON object in text: all of it, or from its first
// '{' to its last '}' (a code fence or words around it).
func FindObject(text string) ([]byte, bool) {
	b := bytes.TrimSpace([]byte(text))
	if json.Valid(b) && len(b) > 0 && b[0] == '{' {
		return b, true
	}
	i, j := bytes.IndexByte(b, '{'), bytes.LastIndexByte(b, '}')
	if i < 0 || j < i {
		return nil, false
	}
	return b[i : j+1], json.Valid(b[i : j+1])
}

// Field is fields[name], its name matched in any case.
func Field(fields map[string]json.RawMessage, name string) (json.RawMessage, bool) {
	if v, ok := fields[name]; ok {
		return v, true
	}
	for k, v := range fields {
		if strings.EqualFold(strings.TrimSpace(k), name) {
			return v, true
		}
	}
	return nil, false
}

// Fields are the fields of the JSON object in text (FindObject); ok is
// false when there is none.
func Fields(text string) (map[string]json.RawMessage, bool) {
	obj, ok := FindObject(text)
	if !ok {
		return nil, false
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(obj, &fields) != nil {
		return nil, false
	}
	return fields, true
}

// Verdict reads a yes or no: true, false, or the strings "true", "yes",
// "supported", "answered" and "false", "no", "unsupported", "not
// supported", "not answered" in any case; nil for anything else.
func Verdict(raw json.RawMessage) *bool {
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return &b
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "supported", "answered":
		b = true
		return &b
	case "false", "no", "unsupported", "not supported", "not answered":
		return &b
	}
	return nil
}
