package export

import (
	"bytes"
	"testing"

	"github.com/objbench/objbench/internal/report/reporttest"
)

func TestWriteCSVGolden(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := WriteCSV(&buf, reporttest.Fixture()); err != nil {
		t.Fatal(err)
	}
	reporttest.Golden(t, "run.csv.golden", buf.Bytes())
}
