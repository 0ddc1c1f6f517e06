// Package docscheck holds the test that keeps the project's Markdown docs
// within their line budget and their relative links pointing somewhere.
package docscheck
