package terminal

import (
	"fmt"
	"io"

	"github.com/objbench/objbench/internal/document"
)

// WriteJSON writes d as the indented objbench/v1 document (see
// document.Encode); d is not modified.
func WriteJSON(w io.Writer, d *document.Document) error { return writeDoc(w, d) }

// writeDoc writes any document as document.Encode makes it.
func writeDoc(w io.Writer, d document.Doc) error {
	b, err := document.Encode(d)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("write JSON report: %w", err)
	}
	return nil
}

// WriteProbeJSON writes probe rounds: the one document, or
// {"schema", "probes": [...]} for several (document.EncodeRounds).
func WriteProbeJSON(w io.Writer, docs []*document.Document) error {
	b, err := document.EncodeRounds(docs)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("write JSON report: %w", err)
	}
	return nil
}

// WriteDoc writes any document as document.Encode makes it (--json).
func WriteDoc(w io.Writer, d document.Doc) error { return writeDoc(w, d) }

// WriteRunText writes a run's or probe's summary, or with detail every
// table.
func WriteRunText(w io.Writer, d *document.Document, detail bool) error {
	write := WriteSummary
	if detail {
		write = WriteDetail
	}
	if err := write(w, d); err != nil {
		return err
	}
	return WriteMerge(w, d) // a merged run's shards (nothing otherwise)
}

// WriteProbes writes a probe's rounds: as JSON (see WriteProbeJSON;
// nothing when no round was made), or each round's text (WriteRunText).
func WriteProbes(w io.Writer, docs []*document.Document, jsonOut, detail bool) error {
	if jsonOut {
		if len(docs) == 0 {
			return nil
		}
		return WriteProbeJSON(w, docs)
	}
	for _, d := range docs {
		if err := WriteRunText(w, d, detail); err != nil {
			return err
		}
	}
	return nil
}
