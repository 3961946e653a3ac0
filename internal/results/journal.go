package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/objbench/objbench/internal/document"
	"github.com/objbench/objbench/internal/stats"
)

// journalMigration adds the journal: a run writes its settings when it
// starts (journal_runs), each step's template when it begins
// (journal_steps), every interval of every op in one transaction per
// interval (journal_intervals), and each finished result
// (journal_results). Save removes a run's journal in the transaction that
// stores the run; a journal left behind is a run whose process is gone,
// made into an interrupted run by the next Open (recoverJournals).
const journalMigration = `
CREATE TABLE journal_runs (run_id TEXT PRIMARY KEY, pid INTEGER NOT NULL, host TEXT NOT NULL, process TEXT NOT NULL,
	started_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, settings BLOB NOT NULL);
CREATE TABLE journal_steps (run_id TEXT NOT NULL, step INTEGER NOT NULL, template BLOB NOT NULL, PRIMARY KEY (run_id, step));
CREATE TABLE journal_results (run_id TEXT NOT NULL, idx INTEGER NOT NULL, step INTEGER NOT NULL, result BLOB NOT NULL,
	histograms BLOB NOT NULL, PRIMARY KEY (run_id, idx));
CREATE TABLE journal_intervals (run_id TEXT NOT NULL, step INTEGER NOT NULL, seq INTEGER NOT NULL, op TEXT NOT NULL,
	offered REAL NOT NULL, end_ns INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (run_id, step, seq, op));
`

// journalTables are the journal's tables, each keyed by run_id.
var journalTables = []string{"journal_intervals", "journal_results", "journal_steps", "journal_runs"}

// deleteJournal removes run id's journal within tx.
func deleteJournal(ctx context.Context, tx *sql.Tx, id string) error {
	for _, t := range journalTables {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+t+` WHERE run_id = ?`, id); err != nil {
			return fmt.Errorf("journal of run %s: %w", id, err)
		}
	}
	return nil
}

// BeginJournal writes run id's settings (its document before any step,
// as JSON) and this process, so that a later Open can tell whether the
// run is still going.
func (s *Store) BeginJournal(ctx context.Context, id string, started time.Time, settings []byte) error {
	p := thisProcess()
	now := time.Now().UnixNano()
	_, err := s.db.ExecContext(ctx, `INSERT OR REPLACE INTO journal_runs VALUES (?,?,?,?,?,?,?)`, id, p.pid, p.host, p.process,
		started.UnixNano(), now, settings)
	if err != nil {
		return fmt.Errorf("journal of run %s: %w", id, err)
	}
	return nil
}

// JournalStep writes step's template (a document.Result with what the
// step measures and no measurement, as JSON) as the step begins.
func (s *Store) JournalStep(ctx context.Context, id string, step int, template []byte) error {
	if _, err := s.db.ExecContext(ctx, `INSERT OR REPLACE INTO journal_steps VALUES (?,?,?)`, id, step, template); err != nil {
		return fmt.Errorf("journal of run %s: %w", id, err)
	}
	return nil
}

// JournalInterval is one op's interval as journaled: the interval as
// JSON (stats.Interval), what the pacer had offered the op by its end,
// and when it ended.
type JournalInterval struct {
	Op      string
	Offered float64
	End     time.Time
	Data    []byte
}

// JournalIntervals appends interval seq of step, every op of it, in one
// statement: one transaction, so an interval is in the journal whole or
// not at all. Statements are prepared once per number of ops (see
// journalStmts): a run writes one a second, and parsing each anew kept
// SQLite's parser resident in the run's memory.
func (s *Store) JournalIntervals(ctx context.Context, id string, step, seq int, ivs []JournalInterval) error {
	if len(ivs) == 0 {
		return nil
	}
	st, err := s.journalStmt(ctx, len(ivs))
	if err != nil {
		return fmt.Errorf("journal of run %s: %w", id, err)
	}
	args := make([]any, 0, 7*len(ivs))
	for _, iv := range ivs {
		args = append(args, id, step, seq, iv.Op, iv.Offered, iv.End.UnixNano(), iv.Data)
	}
	if _, err := st.ExecContext(ctx, args...); err != nil {
		return fmt.Errorf("journal of run %s: %w", id, err)
	}
	return nil
}

// journalStmt is the prepared INSERT of n intervals.
func (s *Store) journalStmt(ctx context.Context, n int) (*sql.Stmt, error) {
	s.stmtMu.Lock()
	defer s.stmtMu.Unlock()
	if st := s.stmts[n]; st != nil {
		return st, nil
	}
	q := "INSERT OR REPLACE INTO journal_intervals VALUES " + strings.Repeat("(?,?,?,?,?,?,?),", n-1) + "(?,?,?,?,?,?,?)"
	st, err := s.db.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	if s.stmts == nil {
		s.stmts = map[int]*sql.Stmt{}
	}
	s.stmts[n] = st
	return st, nil
}

// JournalResult writes finished result idx (in the document's order) of
// step with its histograms.
func (s *Store) JournalResult(ctx context.Context, id string, step, idx int, result []byte, hists map[string][]byte) error {
	h, err := json.Marshal(hists)
	if err != nil {
		return err
	}
	if _, err := s.db.ExecContext(ctx, `INSERT OR REPLACE INTO journal_results VALUES (?,?,?,?,?)`, id, idx, step, result, h); err != nil {
		return fmt.Errorf("journal of run %s: %w", id, err)
	}
	return nil
}

// DropJournal removes run id's journal, if any (a run that is not saved
// after all).
func (s *Store) DropJournal(ctx context.Context, id string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := deleteJournal(ctx, tx, id); err != nil {
		return err
	}
	return tx.Commit()
}

// JournalAlive says run id's process is still going (between intervals:
// a long preparation, or a long --interval), for another host's Open.
func (s *Store) JournalAlive(ctx context.Context, id string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE journal_runs SET updated_at = ? WHERE run_id = ?`, time.Now().UnixNano(), id)
	return err
}

// JournalSum is what a run's journal holds, as the kill test checks it:
// the intervals and the sum of their counts.
type JournalSum struct {
	Intervals     int
	Count, Errors int64
}

// SumJournal adds up run id's journaled intervals (zero when it has no
// journal: finished, or recovered already).
func (s *Store) SumJournal(ctx context.Context, id string) (JournalSum, error) {
	var out JournalSum
	rows, err := s.db.QueryContext(ctx, `SELECT data FROM journal_intervals WHERE run_id = ?`, id)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		var b []byte
		var iv stats.Interval
		if err := rows.Scan(&b); err != nil {
			return out, err
		}
		if err := json.Unmarshal(b, &iv); err != nil {
			return out, err
		}
		out.Intervals++
		out.Count += iv.Count
		out.Errors += iv.Errors
	}
	return out, rows.Err()
}

// journaled is one journal_runs row.
type journaled struct {
	id      string
	proc    process
	started time.Time
	updated time.Time
}

// recoverJournals makes every journal whose process is gone into an
// interrupted run (see Recover). It is best-effort: a database another
// process holds is tried again at the next Open.
func (s *Store) recoverJournals(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `SELECT run_id, pid, host, process, started_at, updated_at FROM journal_runs`)
	if err != nil {
		return err
	}
	var gone []journaled
	var reasons []string
	now := time.Now()
	for rows.Next() {
		var j journaled
		var started, updated int64
		if err := rows.Scan(&j.id, &j.proc.pid, &j.proc.host, &j.proc.process, &started, &updated); err != nil {
			rows.Close()
			return err
		}
		j.started, j.updated = time.Unix(0, started), time.Unix(0, updated)
		if last := s.lastInterval(ctx, j.id); last.After(j.updated) {
			j.updated = last // intervals are written without touching journal_runs
		}
		if reason, dead := j.proc.gone(j.updated, now); dead {
			gone = append(gone, j)
			reasons = append(reasons, reason)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for i, j := range gone {
		if err := s.recoverOne(ctx, j, reasons[i]); err != nil {
			return err
		}
	}
	return nil
}

// lastInterval is when run id's last journaled interval ended (zero: none).
func (s *Store) lastInterval(ctx context.Context, id string) time.Time {
	var end sql.NullInt64
	_ = s.db.QueryRowContext(ctx, `SELECT max(end_ns) FROM journal_intervals WHERE run_id = ?`, id).Scan(&end)
	if !end.Valid {
		return time.Time{}
	}
	return time.Unix(0, end.Int64)
}

// recoverOne saves run j from its journal as an interrupted run, cut short
// for reason, and removes the journal, in one transaction. A journal that
// cannot be read is saved as the run's settings with the reason why.
func (s *Store) recoverOne(ctx context.Context, j journaled, reason string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var settings []byte
	switch err := tx.QueryRowContext(ctx, `SELECT settings FROM journal_runs WHERE run_id = ?`, j.id).Scan(&settings); {
	case errors.Is(err, sql.ErrNoRows):
		return nil // another process recovered it first
	case err != nil:
		return err
	}
	doc, hists, err := readJournal(ctx, tx, j.id, settings, reason)
	if err != nil {
		var d document.Document
		_ = json.Unmarshal(settings, &d)
		d.Results, d.Interrupted = nil, true
		d.CutShort = &document.CutShort{Reason: reason + "; its journal could not be read: " + err.Error(), RecoveredAt: time.Now().UTC().Format(time.RFC3339)}
		doc, hists = &d, nil
	}
	doc.RunID = j.id // a shard's journal is under the id it saves as
	if doc.StartedAt == "" {
		doc.StartedAt = j.started.UTC().Format(time.RFC3339)
	}
	run, steps, err := Record(doc, hists)
	if err != nil {
		return fmt.Errorf("recover run %s: %w", j.id, err)
	}
	run.StartedAt, run.Host = j.started, j.proc.host
	if err := saveTx(ctx, tx, run, steps, nil); err != nil {
		return fmt.Errorf("recover run %s: %w", j.id, err)
	}
	if err := deleteJournal(ctx, tx, j.id); err != nil {
		return err
	}
	return tx.Commit()
}

// readJournal replays run id's journal into a Partial and returns its
// document, cut short for reason.
func readJournal(ctx context.Context, tx *sql.Tx, id string, settings []byte, reason string) (*document.Document, []map[string][]byte, error) {
	var d document.Document
	if err := json.Unmarshal(settings, &d); err != nil {
		return nil, nil, fmt.Errorf("settings: %w", err)
	}
	p := NewPartial(d)
	type stepRow struct {
		step int
		tmpl []byte
	}
	var steps []stepRow
	rows, err := tx.QueryContext(ctx, `SELECT step, template FROM journal_steps WHERE run_id = ? ORDER BY step`, id)
	if err != nil {
		return nil, nil, err
	}
	for rows.Next() {
		var r stepRow
		if err := rows.Scan(&r.step, &r.tmpl); err != nil {
			rows.Close()
			return nil, nil, err
		}
		steps = append(steps, r)
	}
	rows.Close()
	for _, st := range steps {
		var tmpl document.Result
		if err := json.Unmarshal(st.tmpl, &tmpl); err != nil {
			return nil, nil, fmt.Errorf("step %d: %w", st.step, err)
		}
		p.BeginStep(st.step, tmpl)
		if err := replayIntervals(ctx, tx, p, id, st.step); err != nil {
			return nil, nil, err
		}
		if err := replayResults(ctx, tx, p, id, st.step); err != nil {
			return nil, nil, err
		}
	}
	return p.Document(reason, time.Now())
}

func replayIntervals(ctx context.Context, tx *sql.Tx, p *Partial, id string, step int) error {
	rows, err := tx.QueryContext(ctx, `SELECT offered, end_ns, data FROM journal_intervals WHERE run_id = ? AND step = ? ORDER BY seq, rowid`, id, step)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var offered float64
		var end int64
		var b []byte
		if err := rows.Scan(&offered, &end, &b); err != nil {
			return err
		}
		var iv stats.Interval
		if err := json.Unmarshal(b, &iv); err != nil {
			return fmt.Errorf("step %d interval: %w", step, err)
		}
		if err := p.Add(step, iv, offered, time.Unix(0, end)); err != nil {
			return err
		}
	}
	return rows.Err()
}

func replayResults(ctx context.Context, tx *sql.Tx, p *Partial, id string, step int) error {
	rows, err := tx.QueryContext(ctx, `SELECT result, histograms FROM journal_results WHERE run_id = ? AND step = ? ORDER BY idx`, id, step)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var rb, hb []byte
		if err := rows.Scan(&rb, &hb); err != nil {
			return err
		}
		var r document.Result
		var h map[string][]byte
		if err := json.Unmarshal(rb, &r); err != nil {
			return fmt.Errorf("step %d result: %w", step, err)
		}
		if err := json.Unmarshal(hb, &h); err != nil {
			return fmt.Errorf("step %d histograms: %w", step, err)
		}
		p.Result(step, r, h)
	}
	return rows.Err()
}

// StaleAfter is how long a journal written on another host may go without
// a write before its run is taken for gone (its process cannot be
// checked from here). A running journal writes at every interval and at
// least every JournalAliveEvery.
const StaleAfter = 10 * time.Minute

// JournalAliveEvery is how often a running journal says it is alive when
// no interval is written.
const JournalAliveEvery = time.Minute

// process identifies a process across hosts and reboots: its id, its
// host, and on Linux its boot and start time (another process may reuse
// the id).
type process struct {
	pid     int
	host    string
	process string
}

func thisProcess() process {
	host, _ := os.Hostname()
	pid := os.Getpid()
	return process{pid: pid, host: host, process: processStamp(pid)}
}

// gone says whether p has ended, and how that is known.
func (p process) gone(updated, now time.Time) (string, bool) {
	host, _ := os.Hostname()
	if p.host != host || !canCheckProcesses {
		if idle := now.Sub(updated); idle > StaleAfter {
			return fmt.Sprintf("no journal entry from host %s for %s (another host: its process cannot be checked)", p.host, idle.Round(time.Second)), true
		}
		return "", false
	}
	stamp, alive := processAlive(p.pid)
	switch {
	case !alive:
		return fmt.Sprintf("process %d on host %s is gone", p.pid, p.host), true
	case p.process != "" && stamp != "" && stamp != p.process:
		return fmt.Sprintf("process %d on host %s is gone (its id is another process's now)", p.pid, p.host), true
	}
	return "", false
}
