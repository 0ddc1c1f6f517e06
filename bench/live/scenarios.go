//go:build e2e

package live

import (
	"strings"
	"time"
)

// Think times between user turns, fixed so that every run of a scenario
// sees the same timeline (several are over 5 minutes: a 5-minute cache
// lifetime expires there). None is within a minute of 5 minutes: the
// real seconds Pi takes to start and stop are added to each gap, and must
// not decide on which side of the lifetime it falls.
const (
	think40s = 40 * time.Second
	think90s = 90 * time.Second
	think2m  = 2 * time.Minute
	think3m  = 3 * time.Minute
	think4m  = 4 * time.Minute
	think6m  = 6 * time.Minute
	think7m  = 7 * time.Minute
	think9m  = 9 * time.Minute
	think11m = 11 * time.Minute
)

// gitCommit is a bash command committing everything with msg (paragraphs
// separated by blank lines become -m arguments) and showing the log.
func gitCommit(msg string) string {
	cmd := "git add -A && git commit -q"
	for _, p := range strings.Split(msg, "\n\n") {
		cmd += " -m " + shellQuote(p)
	}
	return cmd + " && git log --oneline -3"
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Scenarios returns the benchmark's scenarios; the last one is the short
// scenario run by the CI version.
func Scenarios() []Scenario {
	return []Scenario{cancelOrders(), refundIncident(), customerPagination(), lateDeliveries(), releaseWeek()}
}

// Short returns the scenario of the CI version.
func Short() Scenario { return releaseWeek() }

// cancelOrders: a feature across a migration, an endpoint, tests, a commit
// and release notes; the agent comes back to the API and migration skills
// after long pauses.
func cancelOrders() Scenario {
	return Scenario{
		Name:  "cancel-orders",
		About: "feature: migration, endpoint, tests, commits, release notes; comes back to design-http-api and write-sql-migration after 11 and 2 minutes",
		Turns: []Turn{
			{Prompt: "Customers should be able to cancel an order until it ships. Add a cancelled_at column to orders and a POST /orders/{id}/cancel endpoint.", Steps: []Step{
				Load("triage-web-task"),
				Bash("git status --short && git log --oneline -5"),
				Bash("ls -R internal db"),
				Load("write-sql-migration"),
				Bash("ls db/migrations | tail -2"),
				Ref("write-sql-migration", "references/migration-checklist.md"),
				Write("db/migrations/000042_orders_cancelled_at.up.sql", "SET lock_timeout = '3s';\nALTER TABLE orders ADD COLUMN cancelled_at timestamptz;\nCOMMENT ON COLUMN orders.cancelled_at IS 'set when the customer cancels; NULL otherwise';\n"),
				Write("db/migrations/000042_orders_cancelled_at.down.sql", "SET lock_timeout = '3s';\nALTER TABLE orders DROP COLUMN cancelled_at;\n"),
				Bash("cat db/migrations/000042_orders_cancelled_at.up.sql db/migrations/000042_orders_cancelled_at.down.sql"),
				Say("The migration is written: 000042 adds a nullable cancelled_at (no table rewrite, 3 s lock timeout) and its down file drops it. Next comes the endpoint; it needs the column first, so ship the migration before the handler."),
			}},
			{Prompt: "Good. Now the endpoint itself: POST /orders/{id}/cancel.", Think: think3m, Steps: []Step{
				Load("design-http-api"),
				Read("internal/api/orders.go"),
				Read("internal/api/routes.go"),
				Bash("grep -n 'Status' internal/api/orders.go | head -20"),
				Write("internal/api/cancel.go", "package api\n\nimport (\n\t\"errors\"\n\t\"net/http\"\n\t\"strconv\"\n\n\t\"example.com/shopd/internal/store\"\n)\n\n// CancelOrder handles POST /orders/{id}/cancel: 200 with the order when it\n// is cancelled (or already was), 409 once it has shipped.\nfunc (h *Handlers) CancelOrder(w http.ResponseWriter, r *http.Request) {\n\tid, err := strconv.ParseInt(r.PathValue(\"id\"), 10, 64)\n\tif err != nil {\n\t\twriteError(w, http.StatusBadRequest, \"invalid_id\", \"the order id must be a number\")\n\t\treturn\n\t}\n\to, err := h.db.CancelOrder(r.Context(), id)\n\tswitch {\n\tcase errors.Is(err, store.ErrNotFound):\n\t\twriteError(w, http.StatusNotFound, \"not_found\", \"no such order\")\n\tcase errors.Is(err, store.ErrShipped):\n\t\twriteError(w, http.StatusConflict, \"already_shipped\", \"the order has shipped and can no longer be cancelled\")\n\tcase err != nil:\n\t\twriteError(w, http.StatusInternalServerError, \"internal\", \"could not cancel the order\")\n\tdefault:\n\t\twriteJSON(w, http.StatusOK, toOrder(o))\n\t}\n}\n"),
				Bash("sed -i 's|\tmux.HandleFunc(\"POST /orders/{id}/refunds\", h.CreateRefund)|\tmux.HandleFunc(\"POST /orders/{id}/cancel\", h.CancelOrder)\\n&|' internal/api/routes.go && grep -n HandleFunc internal/api/routes.go"),
				Say("POST /orders/{id}/cancel is in internal/api/cancel.go and registered in routes.go: 200 with the order, 404 for an unknown id, 409 already_shipped once it has shipped, 400 for a bad id."),
			}},
			{Prompt: "Add tests for the cancel endpoint, including cancelling an order that has already shipped.", Think: think7m, Steps: []Step{
				Load("add-go-test"),
				Read("internal/api/orders_test.go"),
				Write("internal/api/cancel_test.go", "package api\n\nimport (\n\t\"net/http\"\n\t\"net/http/httptest\"\n\t\"testing\"\n)\n\nfunc TestCancelOrder(t *testing.T) {\n\th := newTestHandlers(t)\n\ttests := []struct {\n\t\tname string\n\t\tpath string\n\t\twant int\n\t}{\n\t\t{\"open order\", \"/orders/1/cancel\", http.StatusOK},\n\t\t{\"cancelled twice\", \"/orders/1/cancel\", http.StatusOK},\n\t\t{\"shipped\", \"/orders/2/cancel\", http.StatusConflict},\n\t\t{\"missing\", \"/orders/999/cancel\", http.StatusNotFound},\n\t\t{\"not a number\", \"/orders/abc/cancel\", http.StatusBadRequest},\n\t}\n\tfor _, tt := range tests {\n\t\tt.Run(tt.name, func(t *testing.T) {\n\t\t\trec := httptest.NewRecorder()\n\t\t\tRoutes(h.db).ServeHTTP(rec, httptest.NewRequest(\"POST\", tt.path, nil))\n\t\t\tif rec.Code != tt.want {\n\t\t\t\tt.Errorf(\"POST %s = %d, want %d\", tt.path, rec.Code, tt.want)\n\t\t\t}\n\t\t})\n\t}\n}\n"),
				Bash("grep -n 'func Test\\|t.Run' internal/api/*_test.go"),
				Need("design-http-api"),
				Say("internal/api/cancel_test.go covers an open order, a second cancel (idempotent, 200), a shipped order (409), an unknown id (404) and a malformed id (400), table-driven like TestGetOrder."),
			}},
			{Prompt: "Commit all of this.", Think: think90s, Steps: []Step{
				Load("format-commit-message"),
				Bash("git status --short"),
				Bash(gitCommit("feat(api): cancel an order until it ships\n\nCustomers asked to cancel orders themselves. The new endpoint sets\norders.cancelled_at (migration 000042) and answers 409 once shipped.")),
				Say("Committed as feat(api): cancel an order until it ships, with the migration, the handler and its tests."),
			}},
			{Prompt: "Wait, what should cancel return when the order is already cancelled? Check it against our API guidelines.", Think: think11m, Steps: []Step{
				Need("design-http-api"),
				Read("internal/api/cancel.go"),
				Bash("grep -rn 'StatusConflict\\|StatusOK' internal/api/*.go"),
				Say("It returns 200 with the order, which is what the guidelines ask for a repeated state change: the call is idempotent, the second cancel changes nothing and the client gets the same body. Only a shipped order gets 409."),
			}},
			{Prompt: "And the down migration, is it safe to run on the live database?", Think: think2m, Steps: []Step{
				Need("write-sql-migration"),
				Ref("write-sql-migration", "references/migration-checklist.md"),
				Read("db/migrations/000042_orders_cancelled_at.down.sql"),
				Say("Yes: dropping a nullable column is a catalog change with a 3 s lock timeout, so at worst it fails and can be retried. Per the checklist, ship the code that stops reading cancelled_at one release before running it."),
			}},
			{Prompt: "Run the checks once more and commit if anything changed.", Think: think40s, Steps: []Step{
				Bash("grep -n 'func Test' internal/api/*_test.go && git status --short"),
				Need("format-commit-message"),
				Bash("git diff --stat HEAD"),
				Say("Nothing changed since the last commit; the tests are TestGetOrder and TestCancelOrder. No new commit needed."),
			}},
			{Prompt: "Prepare the release notes for v1.8.0.", Think: think9m, Steps: []Step{
				Load("write-release-notes"),
				Bash("git log --oneline -10"),
				Read("CHANGELOG.md"),
				Write("CHANGELOG.md", "# Changelog\n\n## v1.8.0 - 2026-11-29\n\n### New\n\n- `POST /orders/{id}/cancel` cancels an order until it ships; a second\n  cancel returns the same order, a shipped order gets `409 already_shipped`.\n\n### Operations\n\n- Migration 000042 adds `orders.cancelled_at` (nullable, no table rewrite).\n\n## v1.7.2 - 2026-11-02\n\n### Fixed\n\n- `GET /orders` no longer returns cancelled drafts (#412).\n\n## v1.7.1 - 2026-10-20\n\n### Fixed\n\n- Totals are rounded half-even, as invoices are (#398).\n"),
				Bash("head -15 CHANGELOG.md"),
				Say("CHANGELOG.md has a v1.8.0 section: the cancel endpoint under New and migration 000042 under Operations. It is a minor version: a new endpoint, nothing breaking."),
			}},
			{Prompt: "Is the cancel response shape consistent with GET /orders/{id}?", Think: think4m, Steps: []Step{
				Need("design-http-api"),
				Read("internal/api/orders.go"),
				Say("Yes: both write toOrder(o), so the fields, names and types are identical; cancel only adds the 409 error shape, which uses the same error envelope."),
			}},
			{Prompt: "Commit the release notes and tag v1.8.0.", Think: think90s, Steps: []Step{
				Need("write-release-notes"),
				Need("format-commit-message"),
				Bash(gitCommit("docs(changelog): release notes for v1.8.0")),
				Bash("git tag v1.8.0 && git tag --list"),
				Say("Committed the changelog and tagged v1.8.0."),
			}},
		},
	}
}

// refundIncident: a production bug traced from a request id, a test, a
// fix, a constraint, then a slow endpoint and an index; the agent comes back
// to trace-failing-request and write-sql-migration long after loading them.
func refundIncident() Scenario {
	return Scenario{
		Name:  "refund-incident",
		About: "incident: trace, failing test, fix, commit, migration, profile, index; comes back to write-sql-migration after 11 minutes and to trace-failing-request eight turns later",
		Turns: []Turn{
			{Prompt: "Support says order 88121 was refunded more than its total in staging yesterday, request id req-7f3a9e. Find out what happened.", Steps: []Step{
				Load("triage-web-task"),
				Bash("git log --oneline -5"),
				Load("trace-failing-request"),
				Bash("grep -n 'req-7f3a9e' ops/staging.log"),
				Bash("grep -n '88121' ops/staging.log"),
				Read("internal/api/refunds.go"),
				Read("internal/store/orders.go"),
				Say("Two partial refunds on order 88121 (req-7f3a2c then req-7f3a9e) were each checked against the order total (12900) instead of what was still refundable, so together they reached 15900; the payment provider then rejected the second one. The check in CreateRefund is the bug (#431); store.RefundedCents already gives the refunded sum."),
			}},
			{Prompt: "Write a failing test for that first.", Think: think4m, Steps: []Step{
				Load("add-go-test"),
				Read("internal/api/orders_test.go"),
				Write("internal/api/refunds_test.go", "package api\n\nimport (\n\t\"net/http\"\n\t\"net/http/httptest\"\n\t\"strings\"\n\t\"testing\"\n)\n\n// TestSecondPartialRefund reproduces #431: two partial refunds that each\n// fit the order total but together exceed it.\nfunc TestSecondPartialRefund(t *testing.T) {\n\th := newTestHandlers(t)\n\th.seedOrder(t, 88121, 12900)\n\tpost := func(body string) int {\n\t\trec := httptest.NewRecorder()\n\t\tRoutes(h.db).ServeHTTP(rec, httptest.NewRequest(\"POST\", \"/orders/88121/refunds\", strings.NewReader(body)))\n\t\treturn rec.Code\n\t}\n\tif got := post(`{\"amount_cents\": 9000}`); got != http.StatusCreated {\n\t\tt.Fatalf(\"first refund = %d, want 201\", got)\n\t}\n\tif got := post(`{\"amount_cents\": 6900}`); got != http.StatusUnprocessableEntity {\n\t\tt.Errorf(\"second refund = %d, want 422 (only 3900 left)\", got)\n\t}\n}\n"),
				Bash("grep -n 'func Test' internal/api/*_test.go"),
				Say("internal/api/refunds_test.go has TestSecondPartialRefund: 9000 then 6900 on a 12900 order; the second must be refused with 422. It fails today (the handler answers 201)."),
			}},
			{Prompt: "Now fix the handler so partial refunds cannot exceed what is still refundable.", Think: think2m, Steps: []Step{
				Read("internal/api/refunds.go"),
				Bash("grep -rn 'RefundedCents' internal"),
				Write("internal/api/refunds.go", "package api\n\nimport (\n\t\"encoding/json\"\n\t\"net/http\"\n\t\"strconv\"\n)\n\ntype refundRequest struct {\n\tAmountCents int64  `json:\"amount_cents\"`\n\tReason      string `json:\"reason\"`\n}\n\nfunc (h *Handlers) CreateRefund(w http.ResponseWriter, r *http.Request) {\n\tid, err := strconv.ParseInt(r.PathValue(\"id\"), 10, 64)\n\tif err != nil {\n\t\twriteError(w, http.StatusBadRequest, \"invalid_id\", \"the order id must be a number\")\n\t\treturn\n\t}\n\tvar req refundRequest\n\tif err := json.NewDecoder(r.Body).Decode(&req); err != nil {\n\t\twriteError(w, http.StatusBadRequest, \"invalid_body\", err.Error())\n\t\treturn\n\t}\n\to, err := h.db.Order(r.Context(), id)\n\tif err != nil {\n\t\twriteError(w, http.StatusInternalServerError, \"internal\", \"could not load the order\")\n\t\treturn\n\t}\n\trefunded, err := h.db.RefundedCents(r.Context(), id)\n\tif err != nil {\n\t\twriteError(w, http.StatusInternalServerError, \"internal\", \"could not load the refunds\")\n\t\treturn\n\t}\n\tif left := o.TotalCents - refunded; req.AmountCents > left {\n\t\twriteError(w, http.StatusUnprocessableEntity, \"too_much\", \"refund exceeds the amount still refundable\")\n\t\treturn\n\t}\n\tref, err := h.db.CreateRefund(r.Context(), id, req.AmountCents, req.Reason)\n\tif err != nil {\n\t\twriteError(w, http.StatusInternalServerError, \"internal\", \"could not create the refund\")\n\t\treturn\n\t}\n\twriteJSON(w, http.StatusCreated, ref)\n}\n"),
				Need("add-go-test"),
				Bash("grep -n 'refunded\\|left' internal/api/refunds.go"),
				Say("CreateRefund now subtracts store.RefundedCents from the total and refuses anything above what is left with 422 too_much; TestSecondPartialRefund covers it. There is still a race between two concurrent refunds, which only the database can close."),
			}},
			{Prompt: "Commit the test and the fix together.", Think: think9m, Steps: []Step{
				Load("format-commit-message"),
				Bash(gitCommit("fix(api): cap partial refunds at the amount still refundable\n\nTwo partial refunds were each checked against the order total, so\ntogether they could exceed it (order 88121, req-7f3a9e).\n\nFixes: #431")),
				Say("Committed fix(api): cap partial refunds at the amount still refundable, with the test and Fixes: #431."),
			}},
			{Prompt: "Should refunds also be guarded in the database so that race cannot happen?", Think: think90s, Steps: []Step{
				Load("write-sql-migration"),
				Bash("ls db/migrations | tail -2"),
				Ref("write-sql-migration", "references/migration-checklist.md"),
				Read("db/migrations/000040_create_refunds.up.sql"),
				Say("Yes: keep a refunded_cents column on orders, updated in the same transaction as the refund insert, with CHECK (refunded_cents <= total_cents). Add it NOT VALID, then validate in a later migration, as the checklist asks for constraints on big tables."),
			}},
			{Prompt: "Go with the refunded_cents column and the check; write the migration.", Think: think6m, Steps: []Step{
				Need("write-sql-migration"),
				Write("db/migrations/000042_orders_refunded_cents.up.sql", "SET lock_timeout = '3s';\nALTER TABLE orders ADD COLUMN refunded_cents bigint NOT NULL DEFAULT 0;\nALTER TABLE orders ADD CONSTRAINT orders_refunded_le_total\n  CHECK (refunded_cents <= total_cents) NOT VALID;\n"),
				Write("db/migrations/000042_orders_refunded_cents.down.sql", "SET lock_timeout = '3s';\nALTER TABLE orders DROP CONSTRAINT orders_refunded_le_total;\nALTER TABLE orders DROP COLUMN refunded_cents;\n"),
				Bash("cat db/migrations/000042_orders_refunded_cents.up.sql"),
				Need("format-commit-message"),
				Bash(gitCommit("feat(db): orders.refunded_cents with a refundable-amount check\n\nThe check is added NOT VALID; 000043 validates it.")),
				Say("Migration 000042 adds orders.refunded_cents (constant default, no rewrite) and the check NOT VALID; committed. Validate it in a later migration after the backfill."),
			}},
			{Prompt: "Different topic: GET /customers/{id}/orders takes 800 ms in staging. Why?", Think: think3m, Steps: []Step{
				Load("profile-go-service"),
				Ref("profile-go-service", "references/pprof-cheatsheet.md"),
				Read("ops/profile-customer-orders.txt"),
				Read("internal/store/orders.go"),
				Bash("grep -rn 'customer_id' db/migrations"),
				Say("The profile is 84% waiting on Postgres in OrdersByCustomer, and the plan is a sequential scan of 1.9 M orders filtered on customer_id: there is no index on orders(customer_id). An index on (customer_id, created_at DESC) serves both the filter and the sort."),
			}},
			{Prompt: "Add that index then.", Think: think11m, Steps: []Step{
				Need("write-sql-migration"),
				Ref("write-sql-migration", "references/migration-checklist.md"),
				Bash("ls db/migrations | tail -2"),
				Write("db/migrations/000043_orders_customer_created_idx.up.sql", "-- +migrate NoTransaction\nSET lock_timeout = '3s';\nCREATE INDEX CONCURRENTLY IF NOT EXISTS orders_customer_created_idx\n  ON orders (customer_id, created_at DESC);\n"),
				Write("db/migrations/000043_orders_customer_created_idx.down.sql", "-- +migrate NoTransaction\nSET lock_timeout = '3s';\nDROP INDEX CONCURRENTLY IF EXISTS orders_customer_created_idx;\n"),
				Bash("ls db/migrations | tail -4"),
				Say("000043 builds orders_customer_created_idx concurrently, outside a transaction, in a migration of its own; the down file drops it concurrently. Expect the endpoint to fall from ~800 ms to a few ms."),
			}},
			{Prompt: "Back to the refund incident: does the trace of req-7f3a9e show anything else we missed?", Think: think2m, Steps: []Step{
				Need("trace-failing-request"),
				Bash("grep -n '4bf92f3577b34da6a3ce929d0e0e4736\\|req-7f3a9e' ops/staging.log"),
				Bash("grep -c ERROR ops/staging.log"),
				Say("Only the provider rejection (amount_exceeds_capture) on the same trace; nothing else failed. Worth noting in the incident: the provider caught what our check missed, so no money left the account."),
			}},
			{Prompt: "Commit the index migration.", Think: think4m, Steps: []Step{
				Need("format-commit-message"),
				Bash(gitCommit("perf(db): index orders by customer and creation time\n\nGET /customers/{id}/orders scanned 1.9 M rows (781 ms).")),
				Say("Committed perf(db): index orders by customer and creation time."),
			}},
		},
	}
}

// customerPagination: an endpoint change with tests, interrupted by a flaky
// test and a staging report, then back to the API; the agent re-loads
// design-http-api on purpose in a later turn.
func customerPagination() Scenario {
	return Scenario{
		Name:  "customer-pagination",
		About: "endpoint change and tests, interrupted by a flaky test and a staging error, back to the API after 9 minutes, a deliberate re-load",
		Turns: []Turn{
			{Prompt: "GET /customers/{id}/orders returns every order at once. Add cursor pagination like GET /orders has.", Steps: []Step{
				Load("triage-web-task"),
				Load("design-http-api"),
				Read("internal/api/orders.go"),
				Read("internal/api/routes.go"),
				Bash("grep -rn 'cursor\\|next_cursor' internal"),
				Write("internal/api/customer_orders.go", "package api\n\nimport (\n\t\"net/http\"\n\t\"strconv\"\n)\n\n// CustomerOrdersPage handles GET /customers/{id}/orders?cursor=&limit=:\n// the customer's orders, newest first, limit at a time (default 50, at\n// most 200), with next_cursor set while more remain.\nfunc (h *Handlers) CustomerOrdersPage(w http.ResponseWriter, r *http.Request) {\n\tid, err := strconv.ParseInt(r.PathValue(\"id\"), 10, 64)\n\tif err != nil {\n\t\twriteError(w, http.StatusBadRequest, \"invalid_id\", \"the customer id must be a number\")\n\t\treturn\n\t}\n\tlimit := 50\n\tif v := r.URL.Query().Get(\"limit\"); v != \"\" {\n\t\tn, err := strconv.Atoi(v)\n\t\tif err != nil || n < 1 || n > 200 {\n\t\t\twriteError(w, http.StatusBadRequest, \"invalid_limit\", \"limit is 1 to 200\")\n\t\t\treturn\n\t\t}\n\t\tlimit = n\n\t}\n\tos, next, err := h.db.OrdersByCustomerPage(r.Context(), id, r.URL.Query().Get(\"cursor\"), limit)\n\tif err != nil {\n\t\twriteError(w, http.StatusInternalServerError, \"internal\", \"could not list orders\")\n\t\treturn\n\t}\n\tout := make([]Order, len(os))\n\tfor i, o := range os {\n\t\tout[i] = toOrder(o)\n\t}\n\twriteJSON(w, http.StatusOK, map[string]any{\"orders\": out, \"next_cursor\": next})\n}\n"),
				Bash("sed -i 's|h.CustomerOrders)|h.CustomerOrdersPage)|' internal/api/routes.go && grep -n customers internal/api/routes.go"),
				Say("GET /customers/{id}/orders now pages like GET /orders: cursor and limit (1 to 200, default 50), orders newest first and next_cursor while more remain. The store needs OrdersByCustomerPage."),
			}},
			{Prompt: "Write the tests for the pagination.", Think: think3m, Steps: []Step{
				Load("add-go-test"),
				Read("internal/api/orders_test.go"),
				Write("internal/api/customer_orders_test.go", "package api\n\nimport (\n\t\"net/http\"\n\t\"net/http/httptest\"\n\t\"testing\"\n)\n\nfunc TestCustomerOrdersPage(t *testing.T) {\n\th := newTestHandlers(t)\n\th.seedCustomerOrders(t, 512, 120)\n\ttests := []struct {\n\t\tname string\n\t\tpath string\n\t\twant int\n\t}{\n\t\t{\"first page\", \"/customers/512/orders\", http.StatusOK},\n\t\t{\"small page\", \"/customers/512/orders?limit=10\", http.StatusOK},\n\t\t{\"limit too big\", \"/customers/512/orders?limit=500\", http.StatusBadRequest},\n\t\t{\"bad id\", \"/customers/x/orders\", http.StatusBadRequest},\n\t}\n\tfor _, tt := range tests {\n\t\tt.Run(tt.name, func(t *testing.T) {\n\t\t\trec := httptest.NewRecorder()\n\t\t\tRoutes(h.db).ServeHTTP(rec, httptest.NewRequest(\"GET\", tt.path, nil))\n\t\t\tif rec.Code != tt.want {\n\t\t\t\tt.Errorf(\"GET %s = %d, want %d\", tt.path, rec.Code, tt.want)\n\t\t\t}\n\t\t})\n\t}\n}\n"),
				Bash("grep -n 'func Test' internal/api/*_test.go"),
				Say("internal/api/customer_orders_test.go checks the first page, a small page, a limit above 200 and a malformed id, table-driven."),
			}},
			{Prompt: "TestGetOrder has been flaky on CI since yesterday: sometimes it gets a 500.", Think: think6m, Steps: []Step{
				Need("add-go-test"),
				Bash("git log --oneline -3"),
				Read("internal/api/orders_test.go"),
				Bash("grep -rn 'newTestHandlers\\|seed' internal"),
				Say("TestGetOrder shares the seeded database with the new pagination test, which inserts 120 orders in parallel; when both run together, order 1 can be read mid-transaction. Give each test its own schema (or stop running them in parallel) rather than retrying."),
			}},
			{Prompt: "Someone reports a 500 on GET /customers/512/orders in staging, request id req-7f3aa4. Same issue?", Think: think40s, Steps: []Step{
				Load("trace-failing-request"),
				Bash("grep -n 'req-7f3aa4' ops/staging.log"),
				Bash("grep -n 'customers/512' ops/staging.log"),
				Read("internal/store/orders.go"),
				Say("No: req-7f3aa4 returned 200 after 812 ms; it was slow, not failing. The slowness is the missing index on orders.customer_id, not the flaky test."),
			}},
			{Prompt: "Back to the pagination: what should the response contain when there is no next page?", Think: think9m, Steps: []Step{
				Need("design-http-api"),
				Read("internal/api/customer_orders.go"),
				Say("next_cursor is null on the last page (not an empty string, not omitted), as GET /orders does; clients loop until it is null."),
			}},
			{Prompt: "Commit the pagination with its tests.", Think: think2m, Steps: []Step{
				Load("format-commit-message"),
				Bash("git status --short"),
				Bash(gitCommit("feat(api): page GET /customers/{id}/orders\n\nLarge customers got thousands of orders in one response.")),
				Say("Committed feat(api): page GET /customers/{id}/orders with its tests."),
			}},
			{Prompt: "Read the API guidelines again and check the error codes of the new handler.", Think: think4m, Steps: []Step{
				Load("design-http-api"),
				Bash("grep -n 'writeError' internal/api/customer_orders.go"),
				Say("The codes follow the guidelines: 400 invalid_id and invalid_limit for bad input, 500 internal without details; no 404 for an unknown customer, an empty page is correct there."),
			}},
			{Prompt: "Commit if anything changed, otherwise we are done.", Think: think90s, Steps: []Step{
				Need("format-commit-message"),
				Bash("git status --short"),
				Say("Nothing changed since the commit; we are done."),
			}},
		},
	}
}

// releaseWeek is the short scenario: release notes, a slow endpoint, an
// index, commits, and coming back to the release notes skill after seven
// minutes and three other skills.
func releaseWeek() Scenario {
	return Scenario{
		Name:  "release-week",
		About: "release notes, then a slow endpoint and an index, then back to the release notes (7 minutes and three skills later) and a tag",
		Turns: []Turn{
			{Prompt: "Write the changelog entry for v1.7.3 from what was merged since v1.7.2.", Steps: []Step{
				Load("write-release-notes"),
				Bash("git log --oneline -10"),
				Read("CHANGELOG.md"),
				Write("CHANGELOG.md", "# Changelog\n\n## v1.7.3 - 2026-11-29\n\n### Fixed\n\n- Refunds on an order can no longer exceed its total (#431).\n\n## v1.7.2 - 2026-11-02\n\n### Fixed\n\n- `GET /orders` no longer returns cancelled drafts (#412).\n\n## v1.7.1 - 2026-10-20\n\n### Fixed\n\n- Totals are rounded half-even, as invoices are (#398).\n"),
				Say("CHANGELOG.md has a v1.7.3 section with the refund fix under Fixed; a patch release, nothing new or breaking."),
			}},
			{Prompt: "A customer says GET /customers/512/orders has been very slow since last week. Look into it.", Think: think2m, Steps: []Step{
				Load("triage-web-task"),
				Load("profile-go-service"),
				Ref("profile-go-service", "references/pprof-cheatsheet.md"),
				Read("ops/profile-customer-orders.txt"),
				Read("internal/store/orders.go"),
				Say("OrdersByCustomer spends 84% of the request waiting on Postgres: a sequential scan of 1.9 M orders on customer_id (781 ms). It needs an index on orders (customer_id, created_at DESC)."),
			}},
			{Prompt: "Add an index for that query.", Think: think6m, Steps: []Step{
				Load("write-sql-migration"),
				Bash("ls db/migrations | tail -2"),
				Ref("write-sql-migration", "references/migration-checklist.md"),
				Write("db/migrations/000042_orders_customer_created_idx.up.sql", "-- +migrate NoTransaction\nSET lock_timeout = '3s';\nCREATE INDEX CONCURRENTLY IF NOT EXISTS orders_customer_created_idx\n  ON orders (customer_id, created_at DESC);\n"),
				Write("db/migrations/000042_orders_customer_created_idx.down.sql", "-- +migrate NoTransaction\nSET lock_timeout = '3s';\nDROP INDEX CONCURRENTLY IF EXISTS orders_customer_created_idx;\n"),
				Say("000042 builds orders_customer_created_idx concurrently in its own migration, without a transaction; the down file drops it the same way."),
			}},
			{Prompt: "Commit it.", Think: think90s, Steps: []Step{
				Load("format-commit-message"),
				Bash(gitCommit("perf(db): index orders by customer and creation time")),
				Say("Committed perf(db): index orders by customer and creation time."),
			}},
			{Prompt: "Add the index to the v1.7.3 changelog under Operations.", Think: think7m, Steps: []Step{
				Need("write-release-notes"),
				Read("CHANGELOG.md"),
				Write("CHANGELOG.md", "# Changelog\n\n## v1.7.3 - 2026-11-29\n\n### Fixed\n\n- Refunds on an order can no longer exceed its total (#431).\n\n### Operations\n\n- Migration 000042 builds `orders_customer_created_idx` concurrently;\n  `GET /customers/{id}/orders` no longer scans the orders table.\n\n## v1.7.2 - 2026-11-02\n\n### Fixed\n\n- `GET /orders` no longer returns cancelled drafts (#412).\n\n## v1.7.1 - 2026-10-20\n\n### Fixed\n\n- Totals are rounded half-even, as invoices are (#398).\n"),
				Say("Added an Operations entry for migration 000042 to v1.7.3."),
			}},
			{Prompt: "Commit the changelog and tag v1.7.3.", Think: think3m, Steps: []Step{
				Need("format-commit-message"),
				Bash(gitCommit("docs(changelog): v1.7.3")),
				Need("write-release-notes"),
				Bash("git tag v1.7.3 && git tag --list"),
				Say("Committed the changelog and tagged v1.7.3."),
			}},
		},
	}
}

// lateDeliveries: an ML project from set-up to a committed first model,
// with the shared corpora's ML pack, whose bodies are 3 to 24 thousand
// characters (the other scenarios' are 3 to 4): the regime where archiving
// a body that is done with pays. Modelled on the stages of the pack's
// recorded sessions (docs/benchmarks.md); the prompts and files are the
// project's own.
func lateDeliveries() Scenario {
	return Scenario{
		Name:    "late-deliveries",
		About:   "ML pack (large bodies): set-up, exploration, framing, design, build, smoke test, evaluation, a figure, back to the pipeline after 11 minutes, backlog, commit",
		Project: deliveryFiles,
		Packs:   []string{mlPack, mlPackExtras},
		Turns: []Turn{
			{Prompt: "This repository has a year of parcel deliveries in data/raw/deliveries.csv. Set it up as an ML project: we want to predict which deliveries will be late.", Steps: []Step{
				Load("triage-ml-task"),
				Bash("ls -R . | head -20 && git log --oneline -3"),
				Load("setup-ml-project"),
				Bash("head -5 data/raw/deliveries.csv && wc -l data/raw/deliveries.csv"),
				Write("pyproject.toml", "[project]\nname = \"late-deliveries\"\nversion = \"0.1.0\"\nrequires-python = \">=3.11\"\ndependencies = [\"pandas>=2.2\", \"scikit-learn>=1.5\", \"skrub>=0.4\", \"matplotlib>=3.9\"]\n\n[dependency-groups]\ndev = [\"pytest>=8\"]\n"),
				Write("journal.md", "# Journal\n\n## 2026-11-29 set-up\n\n- Data: data/raw/deliveries.csv, 60 deliveries of 2026, target `late`.\n- Project: pyproject.toml (pandas, scikit-learn, skrub, matplotlib; pytest for dev).\n"),
				Bash(gitCommit("chore: set up the ML project\n\npyproject.toml and the journal; the raw data stays as exported.")),
				Say("The project is set up: pyproject.toml with pandas, scikit-learn, skrub and matplotlib, a journal, and a first commit. The data has 60 deliveries and a 0/1 `late` column; next is exploring it."),
			}},
			{Prompt: "Explore the data. The target is `late`.", Think: think3m, Steps: []Step{
				Load("explore-ml-data"),
				Ref("explore-ml-data", "references/extra_analyses.md"),
				Bash("awk -F, 'NR>1 {n++; l+=$10} END {print n, l, l/n}' data/raw/deliveries.csv"),
				Bash("cut -d, -f4,5 data/raw/deliveries.csv | sort | uniq -c | sort -rn | head"),
				Write("reports/eda.md", "# Exploration of deliveries.csv\n\n- 60 rows, one per parcel; no missing values.\n- Target `late`: the minority class (see the count above).\n- `carrier_delay_minutes` is filled in by the carrier *after* delivery: it is zero exactly when `late` is 0. Leakage candidate.\n- Distance is the strongest raw signal; region and carrier are balanced.\n"),
				Say("reports/eda.md has the first look: 60 clean rows, `late` is the minority class, distance matters most, and `carrier_delay_minutes` looks like leakage since it is only known after delivery."),
			}},
			{Prompt: "Is carrier_delay_minutes really leakage? It would make the model look great.", Think: think2m, Steps: []Step{
				Need("explore-ml-data"),
				Bash("awk -F, 'NR>1 && (($9>0) != ($10==1)) {d++} END {print d+0, \"rows disagree\"}' data/raw/deliveries.csv"),
				Say("Yes: it is non-zero exactly when the parcel was late (0 rows disagree) and the carrier reports it after delivery, so it is not known the evening before. It must be dropped from the features."),
			}},
			{Prompt: "Which metric should we compare models on? Ops can re-route about one delivery in ten, and they act on the top of the list.", Think: think6m, Steps: []Step{
				Load("frame-ml-problem"),
				Ref("frame-ml-problem", "references/fallback.md"),
				Write("docs/framing.md", "# Framing\n\n- Task: binary classification of `late`, scored the evening before delivery.\n- Features known then: dates, region, carrier, distance, weight, items. Not `carrier_delay_minutes`.\n- Metric: average precision (ops act on the top of a ranked list); report precision at 10% too.\n- Split: by `order_date` (train on earlier months, test on the last two), never shuffled.\n- Baseline: always predict the training prevalence.\n"),
				Say("docs/framing.md fixes the frame: average precision as the main metric, precision at 10% beside it, a time-based split on order_date, and a prevalence baseline."),
			}},
			{Prompt: "Design the first model: gradient boosting on the features known the evening before.", Think: think4m, Steps: []Step{
				Load("model-ml-pipeline"),
				Write("docs/design-001.md", "# Design 001: gradient boosting\n\n- Input: deliveries.csv, minus `carrier_delay_minutes` and `delivery_id`.\n- Features: month and weekday of `promised_date`, days promised, region and carrier (categorical), distance, weight, items.\n- Model: HistGradientBoostingClassifier with native categorical support, default parameters.\n- Split and metric: as in docs/framing.md.\n- Approval needed before any code.\n"),
				Say("docs/design-001.md describes the first model: gradient boosting on eight features known the evening before, the framing's split and metric. Approve it and I will build it."),
			}},
			{Prompt: "Approved.", Think: think90s, Steps: []Step{
				Load("build-ml-pipeline"),
				Ref("build-ml-pipeline", "references/layer_examples.md"),
				Write("src/late/pipeline.py", "\"\"\"Pipeline of design 001: features known the evening before, gradient boosting.\"\"\"\n\nimport pandas as pd\nfrom sklearn.ensemble import HistGradientBoostingClassifier\n\nLEAKS = [\"carrier_delay_minutes\", \"delivery_id\"]\n\n\ndef features(df: pd.DataFrame) -> pd.DataFrame:\n    promised = pd.to_datetime(df[\"promised_date\"])\n    ordered = pd.to_datetime(df[\"order_date\"])\n    out = df.drop(columns=LEAKS + [\"late\", \"order_date\", \"promised_date\"])\n    out[\"month\"] = promised.dt.month\n    out[\"weekday\"] = promised.dt.weekday\n    out[\"days_promised\"] = (promised - ordered).dt.days\n    return out.astype({\"region\": \"category\", \"carrier\": \"category\"})\n\n\ndef model() -> HistGradientBoostingClassifier:\n    return HistGradientBoostingClassifier(categorical_features=\"from_dtype\", random_state=0)\n"),
				Load("smoke-test-ml-pipeline"),
				Write("tests/test_smoke.py", "import pandas as pd\n\nfrom late.pipeline import LEAKS, features, model\n\n\ndef test_fits_and_drops_leaks():\n    df = pd.read_csv(\"data/raw/deliveries.csv\")\n    X = features(df)\n    assert not set(LEAKS) & set(X.columns)\n    m = model().fit(X, df[\"late\"])\n    assert m.predict_proba(X).shape == (len(df), 2)\n"),
				Bash("ls src/late tests && grep -n 'LEAKS' src/late/pipeline.py tests/test_smoke.py"),
				Say("Built: src/late/pipeline.py (features without the leaking columns, gradient boosting) and tests/test_smoke.py, which checks that the leaks are gone and that the model fits and predicts on the raw file."),
			}},
			{Prompt: "Evaluate it against the baseline, with the split from the framing.", Think: think9m, Steps: []Step{
				Load("evaluate-ml-pipeline"),
				Ref("evaluate-ml-pipeline", "references/reports.md"),
				Write("reports/eval-001.md", "# Evaluation of design 001\n\n| model | average precision | precision at 10% |\n|---|--:|--:|\n| prevalence baseline | 0.23 | 0.20 |\n| gradient boosting | 0.41 | 0.50 |\n\nTest set: the last two months (10 deliveries), trained on the ten before. Small: treat the numbers as a direction, not a result.\n"),
				Say("reports/eval-001.md: gradient boosting reaches an average precision of 0.41 against 0.23 for the baseline, and 0.50 precision in the top 10%, on a test set of only ten deliveries."),
			}},
			{Prompt: "Plot the precision-recall curve of both.", Think: think2m, Steps: []Step{
				Load("plot-ml-figure"),
				Ref("plot-ml-figure", "references/when.md"),
				Write("reports/pr_curve.py", "\"\"\"Precision-recall curves of the baseline and design 001 (reports/pr_curve.png).\"\"\"\n\nimport matplotlib.pyplot as plt\nfrom sklearn.metrics import PrecisionRecallDisplay\n\n\ndef plot(y_test, scores: dict[str, list[float]], path=\"reports/pr_curve.png\"):\n    fig, ax = plt.subplots(figsize=(5, 4))\n    for name, s in scores.items():\n        PrecisionRecallDisplay.from_predictions(y_test, s, name=name, ax=ax)\n    ax.set_title(\"Late deliveries: precision-recall on the last two months\")\n    fig.savefig(path, dpi=150, bbox_inches=\"tight\")\n"),
				Say("reports/pr_curve.py draws both curves on one figure (reports/pr_curve.png); the model stays above the baseline at every recall, most clearly at the top of the list."),
			}},
			{Prompt: "Back to the pipeline: is carrier_delay_minutes dropped everywhere, including the tests?", Think: think11m, Steps: []Step{
				Need("build-ml-pipeline"),
				Bash("grep -rn 'carrier_delay' src tests"),
				Say("Yes: it appears only in LEAKS in src/late/pipeline.py, which features() drops, and the smoke test asserts that none of LEAKS reaches the features."),
			}},
			{Prompt: "What should we try next?", Think: think3m, Steps: []Step{
				Load("triage-ml-task"),
				Load("manage-ml-backlog"),
				Write("backlog.md", "# Backlog\n\n1. More data: 60 deliveries is too few to compare models; ask ops for 2025.\n2. Weather at the depot on the promised date (public data, known the evening before).\n3. Carrier load: deliveries per carrier per day.\n4. Calibrate the probabilities before ops use them as a risk score.\n"),
				Say("backlog.md lists four next steps, most important first: more data (60 rows cannot separate models), weather, carrier load, then calibration."),
			}},
			{Prompt: "Commit this work.", Think: think40s, Steps: []Step{
				Load("persist-ml-git"),
				Bash(gitCommit("feat: first late-delivery model (design 001)\n\nGradient boosting on features known the evening before, with the\nframing, the evaluation against the prevalence baseline, a PR curve\nand the backlog.")),
				Say("Committed the framing, design 001, the pipeline and its smoke test, the evaluation, the figure script and the backlog in one commit."),
			}},
		},
	}
}
