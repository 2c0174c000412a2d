package app

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"ragscope/retrieval"
	"ragscope/ui"
)

// ExplorerCompare offers the explorer's split view (key V): setup a (the
// explorer's own; "" is the file's top level) beside setup B, one of
// setups (the named setups it may be compared with; vs the one to start
// with, "" none: the settings choose one). Each setup opens on its first
// question and stays open for the session; it answers each question with
// its own settings (top_k, threshold, dedup, rerank, search), as `query
// --vs` does. The returned func closes what was opened.
func (as *Assembler) ExplorerCompare(a string, setups []Setup, vs string) (ui.CompareSetup, func() error) {
	c := ui.CompareSetup{Name: a, Vs: vs}
	if c.Name == "" {
		c.Name = "default"
	}
	arms := map[string]*compareArm{}
	quiet := as.quiet() // the explorer owns the screen while B opens
	for _, s := range setups {
		c.Setups = append(c.Setups, s.Name())
		arms[s.Name()] = &compareArm{as: quiet, s: s}
	}
	if len(arms) > 0 {
		c.Retrieve = func(ctx context.Context, setup, question string) (retrieval.Result, error) {
			arm, ok := arms[setup]
			if !ok {
				return retrieval.Result{}, fmt.Errorf("%w: no setup %s to compare with", retrieval.ErrConfig, setup)
			}
			return arm.retrieve(ctx, question)
		}
	}
	return c, func() error {
		var errs []error
		for _, arm := range arms {
			errs = append(errs, arm.close())
		}
		return errors.Join(errs...)
	}
}

// compareArm is the split view's setup B, opened once on first use.
type compareArm struct {
	as *Assembler
	s  Setup
	// mu guards cr; it is held while the setup opens, so two questions
	// never open it twice.
	mu     sync.Mutex
	cr     *checkedRetriever
	closed bool
}

// retrieve answers question with the setup's own settings.
func (c *compareArm) retrieve(ctx context.Context, question string) (retrieval.Result, error) {
	cr, err := c.open(ctx)
	if err != nil {
		return retrieval.Result{}, err
	}
	return cr.Retrieve(ctx, c.s.Query(question))
}

// open opens the setup's backend the first time (a failure is tried
// again on the next question).
func (c *compareArm) open(ctx context.Context) (*checkedRetriever, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, context.Canceled
	}
	if c.cr == nil {
		be, err := c.as.Open(ctx, c.s, Search)
		if err != nil {
			return nil, fmt.Errorf("open setup %s: %w", c.s.Name(), err)
		}
		c.cr = &checkedRetriever{be: be}
	}
	return c.cr, nil
}

// close closes the setup's backend when it was opened.
func (c *compareArm) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	if c.cr == nil || c.cr.be.Close == nil {
		return nil
	}
	return c.cr.be.Close()
}
