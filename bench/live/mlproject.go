//go:build e2e

package live

import (
	"fmt"
	"strings"
)

// Paths of the shared corpora's ML pack and of the reference files its
// recorded sessions had installed beside it, relative to the repository
// root (docs/benchmarks.md: the corpora are read in place, not copied).
const (
	mlPack       = "../shared/corpora/ml-pack/skills"
	mlPackExtras = "../shared/corpora/scenario-sessions/pack-extras"
)

// deliveryFiles is the project of the ML scenario: a fresh repository with
// a year of parcel deliveries to predict lateness from, and nothing else,
// as the ML pack's setup skills expect to find it.
func deliveryFiles() map[string]string {
	return map[string]string{
		"README.md":               "# late-deliveries\n\nDelivery records of the Lyon depot for 2026, exported from the dispatch\nsystem (`data/raw/deliveries.csv`, one row per parcel). The ops\nteam wants to know, the evening before, which of tomorrow's deliveries are\nlikely to be late, so that they can re-route or warn the customer.\n",
		"data/raw/deliveries.csv": deliveriesCSV(60),
		"data/raw/COLUMNS.md": "# Columns of deliveries.csv\n\n" +
			"- `delivery_id`: dispatch id.\n" +
			"- `order_date`, `promised_date`: dates (promised = what the customer was told).\n" +
			"- `region`: delivery zone (north, south, east, west, centre).\n" +
			"- `carrier`: subcontractor (A, B or C).\n" +
			"- `distance_km`, `weight_kg`, `items`: from the dispatch ticket.\n" +
			"- `carrier_delay_minutes`: delay the carrier reports after the delivery.\n" +
			"- `late`: 1 when delivered after the promised date.\n",
	}
}

// deliveriesCSV is n rows of plausible, deterministic deliveries.
func deliveriesCSV(n int) string {
	var b strings.Builder
	b.WriteString("delivery_id,order_date,promised_date,region,carrier,distance_km,weight_kg,items,carrier_delay_minutes,late\n")
	regions := []string{"north", "south", "east", "west", "centre"}
	x := uint32(2026)
	next := func(m uint32) uint32 { // a small LCG: the same file every run
		x = x*1664525 + 1013904223
		return (x >> 8) % m
	}
	for i := 0; i < n; i++ {
		month := 1 + i*12/n
		day := 1 + int(next(27))
		dist := 2 + next(60)
		weight := 1 + next(30)
		delay := 0
		late := 0
		if next(100) < 14+dist/6 {
			late = 1
			delay = 30 + int(next(240))
		}
		fmt.Fprintf(&b, "D%05d,2026-%02d-%02d,2026-%02d-%02d,%s,%c,%d,%d.%d,%d,%d,%d\n",
			41000+i, month, day, month, min(day+2, 28), regions[next(5)], 'A'+rune(next(3)), dist, weight, next(10), 1+next(6), delay, late)
	}
	return b.String()
}
