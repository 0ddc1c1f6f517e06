//go:build browser

// Package browser renders what skill-lifecycle writes for a browser (the
// replay --html report) in a real headless Chromium, Debian's package at
// /usr/bin/chromium (CHROMIUM names another), and checks what is drawn:
// an inline probe added to a copy of the page measures the elements after
// layout and writes its findings into the DOM, which --dump-dom returns.
// Every file carries the browser build tag: `go test ./...` never needs
// Chromium; scripts/test.sh installs it and runs
// `go test -tags browser ./tests/browser/`. Without Chromium the tests
// fail, saying how to install it.
package browser
