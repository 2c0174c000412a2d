// Package pageview is the explorer's page view (p on a result): every
// chunk of the hit's page in order, with its size against the embedding
// model's input limit and the text the limit cuts.
package pageview
