//go:build e2e

package live

// serviceFiles is the project every scenario starts from: a small Go web
// service backed by Postgres, the kind of repository testdata/pack's skills
// are written for. The files are plausible, not compilable; the agent reads,
// greps and edits them through Pi's tools.
func serviceFiles() map[string]string {
	return map[string]string{
		"go.mod":       "module example.com/shopd\n\ngo 1.23\n\nrequire (\n\tgithub.com/jackc/pgx/v5 v5.7.1\n\tgithub.com/prometheus/client_golang v1.20.5\n)\n",
		"README.md":    "# shopd\n\nThe order service: HTTP JSON API in `internal/api`, Postgres queries in\n`internal/store`, migrations in `db/migrations`. `make test` runs the unit\ntests, `make migrate-test` checks the migrations on a fresh database.\n",
		"Makefile":     "test:\n\tgo test ./...\n\nmigrate-test:\n\t./scripts/migrate-test.sh\n\nsqlc:\n\tsqlc generate\n",
		"CHANGELOG.md": "# Changelog\n\n## v1.7.2 - 2026-11-02\n\n### Fixed\n\n- `GET /orders` no longer returns cancelled drafts (#412).\n\n## v1.7.1 - 2026-10-20\n\n### Fixed\n\n- Totals are rounded half-even, as invoices are (#398).\n",
		"cmd/server/main.go": `package main

import (
	"context"
	"log/slog"
	"net/http"
	"os"

	"example.com/shopd/internal/api"
	"example.com/shopd/internal/store"
)

func main() {
	ctx := context.Background()
	db, err := store.Open(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		slog.Error("open database", "err", err)
		os.Exit(1)
	}
	srv := &http.Server{Addr: ":8080", Handler: api.Routes(db)}
	slog.Info("listening", "addr", srv.Addr)
	if err := srv.ListenAndServe(); err != nil {
		slog.Error("serve", "err", err)
	}
}
`,
		"internal/api/routes.go": `package api

import (
	"net/http"

	"example.com/shopd/internal/store"
)

// Routes registers every endpoint of the service.
func Routes(db *store.DB) http.Handler {
	mux := http.NewServeMux()
	h := &Handlers{db: db}
	mux.HandleFunc("GET /orders", h.ListOrders)
	mux.HandleFunc("GET /orders/{id}", h.GetOrder)
	mux.HandleFunc("POST /orders", h.CreateOrder)
	mux.HandleFunc("POST /orders/{id}/refunds", h.CreateRefund)
	mux.HandleFunc("GET /customers/{id}/orders", h.CustomerOrders)
	return withRequestID(withMetrics(mux))
}
`,
		"internal/api/orders.go": `package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"example.com/shopd/internal/store"
)

// Handlers holds the dependencies of the HTTP handlers.
type Handlers struct{ db *store.DB }

// Order is the JSON shape of an order.
type Order struct {
	ID         int64   ` + "`json:\"id\"`" + `
	CustomerID int64   ` + "`json:\"customer_id\"`" + `
	Status     string  ` + "`json:\"status\"`" + `
	TotalCents int64   ` + "`json:\"total_cents\"`" + `
	Currency   string  ` + "`json:\"currency\"`" + `
	Items      []Item  ` + "`json:\"items\"`" + `
}

// Item is one line of an order.
type Item struct {
	SKU      string ` + "`json:\"sku\"`" + `
	Quantity int    ` + "`json:\"quantity\"`" + `
	Cents    int64  ` + "`json:\"unit_cents\"`" + `
}

func (h *Handlers) GetOrder(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_id", "the order id must be a number")
		return
	}
	o, err := h.db.Order(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		writeError(w, http.StatusNotFound, "not_found", "no such order")
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, "internal", "could not load the order")
		return
	}
	writeJSON(w, http.StatusOK, toOrder(o))
}

func (h *Handlers) ListOrders(w http.ResponseWriter, r *http.Request) {
	limit := 50
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 200 {
			writeError(w, http.StatusBadRequest, "invalid_limit", "limit is 1 to 200")
			return
		}
		limit = n
	}
	os, next, err := h.db.Orders(r.Context(), r.URL.Query().Get("cursor"), limit)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "internal", "could not list orders")
		return
	}
	out := make([]Order, len(os))
	for i, o := range os {
		out[i] = toOrder(o)
	}
	writeJSON(w, http.StatusOK, map[string]any{"orders": out, "next_cursor": next})
}

func (h *Handlers) CustomerOrders(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_id", "the customer id must be a number")
		return
	}
	os, err := h.db.OrdersByCustomer(r.Context(), id)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "internal", "could not list orders")
		return
	}
	out := make([]Order, len(os))
	for i, o := range os {
		out[i] = toOrder(o)
	}
	writeJSON(w, http.StatusOK, map[string]any{"orders": out})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]string{"code": code, "message": msg}})
}
`,
		"internal/api/refunds.go": `package api

import (
	"encoding/json"
	"net/http"
	"strconv"
)

type refundRequest struct {
	AmountCents int64  ` + "`json:\"amount_cents\"`" + `
	Reason      string ` + "`json:\"reason\"`" + `
}

func (h *Handlers) CreateRefund(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_id", "the order id must be a number")
		return
	}
	var req refundRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_body", err.Error())
		return
	}
	o, err := h.db.Order(r.Context(), id)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "internal", "could not load the order")
		return
	}
	// BUG(#431): partial refunds compare against the order total, not the
	// amount still refundable, so a second partial refund can exceed it.
	if req.AmountCents > o.TotalCents {
		writeError(w, http.StatusUnprocessableEntity, "too_much", "refund exceeds the order total")
		return
	}
	ref, err := h.db.CreateRefund(r.Context(), id, req.AmountCents, req.Reason)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "internal", "could not create the refund")
		return
	}
	writeJSON(w, http.StatusCreated, ref)
}
`,
		"internal/api/orders_test.go": `package api

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestGetOrder(t *testing.T) {
	h := newTestHandlers(t)
	tests := []struct {
		name string
		path string
		want int
	}{
		{"found", "/orders/1", http.StatusOK},
		{"missing", "/orders/999", http.StatusNotFound},
		{"not a number", "/orders/abc", http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			Routes(h.db).ServeHTTP(rec, httptest.NewRequest("GET", tt.path, nil))
			if rec.Code != tt.want {
				t.Errorf("GET %s = %d, want %d", tt.path, rec.Code, tt.want)
			}
		})
	}
}
`,
		"internal/store/orders.go": `package store

import (
	"context"
	"errors"
)

// ErrNotFound is returned when a row does not exist.
var ErrNotFound = errors.New("not found")

// OrdersByCustomer lists a customer's orders, newest first.
func (db *DB) OrdersByCustomer(ctx context.Context, customerID int64) ([]OrderRow, error) {
	rows, err := db.pool.Query(ctx, ` + "`" + `
		SELECT id, customer_id, status, total_cents, currency, created_at
		FROM orders WHERE customer_id = $1 ORDER BY created_at DESC` + "`" + `, customerID)
	if err != nil {
		return nil, err
	}
	return scanOrders(rows)
}

// RefundedCents sums the refunds of an order.
func (db *DB) RefundedCents(ctx context.Context, orderID int64) (int64, error) {
	var n int64
	err := db.pool.QueryRow(ctx, ` + "`" + `SELECT COALESCE(SUM(amount_cents), 0) FROM refunds WHERE order_id = $1` + "`" + `, orderID).Scan(&n)
	return n, err
}
`,
		"db/migrations/000040_create_refunds.up.sql":    "SET lock_timeout = '3s';\nCREATE TABLE refunds (\n  id bigserial PRIMARY KEY,\n  order_id bigint NOT NULL REFERENCES orders(id),\n  amount_cents bigint NOT NULL CHECK (amount_cents > 0),\n  reason text NOT NULL DEFAULT '',\n  created_at timestamptz NOT NULL DEFAULT now()\n);\n",
		"db/migrations/000040_create_refunds.down.sql":  "SET lock_timeout = '3s';\nDROP TABLE refunds;\n",
		"db/migrations/000041_orders_currency.up.sql":   "SET lock_timeout = '3s';\nALTER TABLE orders ADD COLUMN currency char(3) NOT NULL DEFAULT 'EUR';\n",
		"db/migrations/000041_orders_currency.down.sql": "SET lock_timeout = '3s';\nALTER TABLE orders DROP COLUMN currency;\n",
		"ops/profile-customer-orders.txt": `Showing nodes accounting for 2.41s, 91.6% of 2.63s total
      flat  flat%   sum%        cum   cum%
     0.02s  0.76%  0.76%      2.31s 87.83%  example.com/shopd/internal/api.(*Handlers).CustomerOrders
     0.01s  0.38%  1.14%      2.22s 84.41%  example.com/shopd/internal/store.(*DB).OrdersByCustomer
     0.03s  1.14%  2.28%      2.19s 83.27%  github.com/jackc/pgx/v5.(*Conn).Query
     1.96s 74.52% 76.81%      1.96s 74.52%  runtime/internal/syscall.Syscall6 (waiting on Postgres)
     0.11s  4.18% 80.99%      0.14s  5.32%  encoding/json.(*encodeState).marshal
EXPLAIN ANALYZE SELECT ... FROM orders WHERE customer_id = 4711 ORDER BY created_at DESC
 Sort  (cost=48211.02..48213.40 rows=952 width=64) (actual time=781.2..781.3 rows=37 loops=1)
   ->  Seq Scan on orders  (cost=0.00..48163.00 rows=952 width=64) (actual time=12.8..780.9 rows=37 loops=1)
         Filter: (customer_id = 4711)
         Rows Removed by Filter: 1903411
 Planning Time: 0.2 ms
 Execution Time: 781.4 ms
`,
		"ops/staging.log": `2026-11-27T09:14:02.118Z INFO request method=POST path=/orders/88121/refunds request_id=req-7f3a2c status=201 duration_ms=41
2026-11-27T09:14:09.402Z INFO request method=GET path=/orders/88121 request_id=req-7f3a31 status=200 duration_ms=8
2026-11-27T09:15:44.930Z INFO request method=POST path=/orders/88121/refunds request_id=req-7f3a9e status=201 duration_ms=39
2026-11-27T09:15:44.931Z WARN refund total exceeds order total order_id=88121 refunded_cents=15900 total_cents=12900 request_id=req-7f3a9e
2026-11-27T09:16:10.007Z ERROR payment provider rejected refund order_id=88121 provider_code=amount_exceeds_capture request_id=req-7f3a9e trace_id=4bf92f3577b34da6a3ce929d0e0e4736
2026-11-27T09:16:10.009Z INFO request method=GET path=/customers/512/orders request_id=req-7f3aa4 status=200 duration_ms=812
2026-11-27T09:17:31.551Z INFO request method=GET path=/orders request_id=req-7f3ab0 status=200 duration_ms=23
`,
	}
}
