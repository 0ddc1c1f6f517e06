package relevance

import (
	"math"
	"slices"
	"testing"
)

func TestDetectLanguage(t *testing.T) {
	tests := []struct {
		text string
		want string
	}{
		{"Rédiger le compte rendu d'une réunion à partir de notes, avec les décisions et les actions.", "fr"},
		{"Consultar los registros de una aplicación en Elasticsearch para encontrar errores.", "es"},
		{"Write the changelog and release notes for a new version of the service.", "en"},
		{"Проверить журналы сервера и найти ошибки в ответах.", "ru"},
		{"Skriv en sammanfattning av mötet och alla beslut som togs.", "sv"},
		{"Add dark mode.", "en"}, // no stop word: the preferred language
	}
	for _, tt := range tests {
		if got := languages[detectLanguage(tt.text, langEn)].code; got != tt.want {
			t.Errorf("detectLanguage(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestLanguageCode(t *testing.T) {
	for in, want := range map[string]string{
		"fr": "fr", "FR": "fr", "fr-CA": "fr", "French": "fr", "français": "fr",
		"es_MX": "es", "Español": "es", "nb": "no", "nn-NO": "no", "magyar": "hu",
		"de": "", "klingon": "", "": "",
	} {
		if got := LanguageCode(in); got != want {
			t.Errorf("LanguageCode(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTermsPerLanguage: each language's stemmer and stop words apply, and
// accents fold after stemming, so inflections and unaccented spellings
// meet.
func TestTermsPerLanguage(t *testing.T) {
	same := []struct {
		lang, a, b string
	}{
		{"fr", "rédige", "rédiger"},
		{"fr", "Rédige", "redige"},
		{"fr", "déploie", "déployer"},
		{"fr", "requêtes", "requete"},
		{"es", "registros", "registro"},
		{"es", "Migración", "migracion"},
		{"es", "presentación", "presentaciones"},
		{"ru", "данных", "данные"},
	}
	for _, tt := range same {
		a, b := TermsIn(tt.a, tt.lang), TermsIn(tt.b, tt.lang)
		if len(a) != 1 || len(b) != 1 || a[0] != b[0] {
			t.Errorf("%s: %q → %v, %q → %v: want one shared term", tt.lang, tt.a, a, tt.b, b)
		}
	}
	// Stop words of the language go; French "les" is missing from
	// Snowball's list and added.
	if got := TermsIn("les données de la réunion", "fr"); !slices.Equal(got, []string{"don", "reunion", "don_reunion"}) {
		t.Errorf("French stop words: %v", got)
	}
	if got := TermsIn("consultar los registros de la aplicación", "es"); len(got) != 5 {
		t.Errorf("Spanish stop words: %v", got)
	}
	// English keeps its stemmer.
	if got := TermsIn("validation", "en"); !slices.Equal(got, []string{"valid"}) {
		t.Errorf("English: %v", got)
	}
	// A language Snowball does not stem: words are only folded.
	if got := TermsIn("Übersetzungen prüfen", "de"); !slices.Equal(got, []string{"ubersetzungen", "prufen", "ubersetzungen_prufen"}) {
		t.Errorf("German (no stemmer): %v", got)
	}
}

// TestFoldString: Latin accents and ligatures fold; other scripts keep
// their marks.
func TestFoldString(t *testing.T) {
	for in, want := range map[string]string{
		"réunion": "reunion", "año": "ano", "straße": "strasse", "œuvre": "oeuvre",
		"Ærø": "AEro", "łódź": "lodz", "ёлка": "елка", "йогурт": "йогурт",
		"मॉडल": "मॉडल", "e\u0301te\u0301": "ete",
	} {
		if got := foldString(in); got != want {
			t.Errorf("foldString(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRankAcrossLanguages: French and Spanish skills rank for prompts in
// their language, whatever the inflection or accents, their stop words
// carry nothing, and a prompt in one language still meets the names, code
// words and identifiers of a skill written in another. With the English
// stemmer alone "rédigez", "journal", "reunion" and "presentaciones" missed
// their skills, and "la", "con", "para" matched any Spanish description.
func TestRankAcrossLanguages(t *testing.T) {
	docs := []Doc{
		{Name: "rediger-compte-rendu", Description: "Rédiger le compte rendu d'une réunion : décisions, actions et responsables."},
		{Name: "analyser-journaux", Description: "Analyser les journaux d'un serveur nginx pour trouver les erreurs 5xx."},
		{Name: "crear-presentacion", Description: "Crear una presentación para la dirección con diapositivas y notas del orador."},
		{Name: "migrar-tablas", Description: "Migraciones de esquema PostgreSQL con Alembic: columnas, índices, tablas nuevas."},
		{Name: "consultar-registros", Description: "Consultar los registros de la aplicación en Kibana para encontrar errores."},
		{Name: "deploy-docker-compose", Description: "Deploy the service on a VM with docker compose and a reverse proxy."},
		{Name: "write-release-notes", Description: "Write the changelog and release notes for a version."},
	}
	ix := NewIndex(docs, DefaultParams())
	for _, tt := range []struct{ prompt, want string }{
		{"Rédigez la synthèse.", "rediger-compte-rendu"},
		{"Fais le résumé de la reunion.", "rediger-compte-rendu"},
		{"Regarde le journal du serveur.", "analyser-journaux"},
		{"Haz la migración con Alembic para la tabla.", "migrar-tablas"},
		{"Necesito tres presentaciones.", "crear-presentacion"},
		{"Mets le service en production avec docker compose.", "deploy-docker-compose"},
		{"Despliega con docker compose en la VM.", "deploy-docker-compose"},
	} {
		if got := first(ix.Rank(tt.prompt, DefaultMinSignal)); got != tt.want {
			t.Errorf("%q: first %q, want %q (%+v)", tt.prompt, got, tt.want, ix.Rank(tt.prompt, DefaultMinSignal).Results)
		}
	}
	// Stop words of French and Spanish carry nothing.
	for _, p := range []string{"Merci, c'est parfait.", "Gracias, así está bien.", "Vale, sigue con lo siguiente para la próxima."} {
		if rk := ix.Rank(p, DefaultMinSignal); rk.Signal {
			t.Errorf("%q has a signal: %+v", p, rk)
		}
	}
}

// TestDeclaredLanguage: metadata.language wins over detection; a short
// description with no stop word would otherwise be read as English.
func TestDeclaredLanguage(t *testing.T) {
	docs := []Doc{
		{Name: "facturer", Description: "Facturation client, TVA, échéances.", Language: "fr"},
		{Name: "invoices", Description: "Facturation client, TVA, échéances."},
	}
	ix := NewIndex(docs, DefaultParams())
	if got := []string{languages[ix.docLang[0]].code, languages[ix.docLang[1]].code}; !slices.Equal(got, []string{"fr", "en"}) {
		t.Fatalf("languages %v, want [fr en]", got)
	}
	// "facturer" and "facturation" share the French stem.
	rk := ix.Rank("facturer", DefaultMinSignal)
	if first(rk) != "facturer" {
		t.Errorf("facturer: %+v", rk.Results)
	}
}

// FuzzIndexText: any description, body and declared language index
// without a panic, and rank with finite positive scores in order.
func FuzzIndexText(f *testing.F) {
	for _, s := range []string{"Rédiger le compte rendu", "# H\n\n## Do not use\n\nx-y_z", "\xff\xfe", "Ёлка ёж", "e\u0301te\u0301", "交叉验证"} {
		f.Add(s, s, "fr")
		f.Add(s, "body "+s, "")
	}
	f.Fuzz(func(t *testing.T, desc, body, language string) {
		ix := NewIndex([]Doc{
			{Name: "a-skill", Description: desc, Body: body, Language: language},
			{Name: "b-skill", Description: "Write the changelog.", Body: body + " a-skill"},
		}, DefaultParams())
		for _, p := range []string{desc, body, "changelog", language} {
			rk := ix.Rank(p, DefaultMinSignal)
			for i, r := range rk.Results {
				if !(r.Score > 0) || math.IsInf(r.Score, 0) || math.IsNaN(r.Score) {
					t.Fatalf("score %v for %q", r.Score, p)
				}
				if i > 0 && r.Score > rk.Results[i-1].Score {
					t.Fatalf("not sorted: %+v", rk.Results)
				}
			}
		}
		_ = TermsIn(body, language)
	})
}

// TestWordsDropStopWordsOfTheLanguage: Words (the rules' topic words)
// keeps the terms of the text's own language.
func TestWordsDropStopWordsOfTheLanguage(t *testing.T) {
	kept := func(text string) []string {
		var out []string
		Words(text, func(w string, term bool) {
			if term {
				out = append(out, w)
			}
		})
		return out
	}
	if got := kept("Analyse les journaux de la veille"); !slices.Equal(got, []string{"analyse", "journaux", "veille"}) {
		t.Errorf("French: %v", got)
	}
	if got := kept("Please review the scikit-learn pipeline"); !slices.Equal(got, []string{"review", "scikit", "learn", "pipeline"}) {
		t.Errorf("English: %v", got)
	}
}
