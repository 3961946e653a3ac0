// Package results is objbench's results database: SQLite (modernc.org/sqlite,
// no cgo) in WAL mode with versioned migrations. Every run, strategies and
// startup benchmark is saved with its JSON document, each step's encoded
// histograms and up to a cap of raw samples. No credential is ever stored.
package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite"

	"github.com/objbench/objbench/internal/nettrace"
	"github.com/objbench/objbench/internal/stats"
)

// Errors callers test for.
var (
	ErrNotFound    = errors.New("run not found")
	ErrNewerSchema = errors.New("results database written by a newer objbench")
)

// migrations, in order; schema version n is migrations[:n] applied.
var migrations = []string{`
CREATE TABLE runs (
	id TEXT PRIMARY KEY, command TEXT NOT NULL, started_at INTEGER NOT NULL, duration_s REAL NOT NULL,
	target_url TEXT NOT NULL, provider TEXT NOT NULL, endpoint TEXT NOT NULL, host TEXT NOT NULL,
	interrupted INTEGER NOT NULL, labels TEXT NOT NULL, document BLOB);
CREATE INDEX runs_started ON runs(started_at);
CREATE TABLE run_labels (run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, key TEXT NOT NULL, value TEXT NOT NULL);
CREATE INDEX run_labels_kv ON run_labels(key, value);
CREATE TABLE steps (run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, idx INTEGER NOT NULL,
	workload TEXT NOT NULL, op TEXT NOT NULL, size_bytes INTEGER NOT NULL, concurrency INTEGER NOT NULL,
	strategy TEXT NOT NULL, summary BLOB, PRIMARY KEY (run_id, idx));
CREATE TABLE step_histograms (run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, step_idx INTEGER NOT NULL,
	metric TEXT NOT NULL, data BLOB NOT NULL, PRIMARY KEY (run_id, step_idx, metric));
CREATE TABLE samples (run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, step_idx INTEGER NOT NULL,
	worker INTEGER, seq INTEGER, op TEXT, key TEXT, size INTEGER, bytes INTEGER,
	start_ns INTEGER, first_byte_ns INTEGER, end_ns INTEGER,
	dns_ns INTEGER, connect_ns INTEGER, tls_ns INTEGER, send_ns INTEGER, wait100_ns INTEGER, wait_ns INTEGER, recv_ns INTEGER,
	status INTEGER, error_class TEXT, error TEXT, requests INTEGER, retries INTEGER, reconnects INTEGER,
	reused INTEGER, was_idle INTEGER, idle_ns INTEGER, protocol TEXT, tls_version TEXT, remote_addr TEXT);
CREATE INDEX samples_run ON samples(run_id, step_idx, start_ns);
`,
	// 2: runs are listed newest first with id as the tie-break; an index
	// on both spares a sort of the whole table.
	`
DROP INDEX runs_started;
CREATE INDEX runs_started ON runs(started_at, id);
`,
	// 3: the journal of runs as they go (journal.go).
	journalMigration}

// DefaultPath is $XDG_DATA_HOME/objbench/results.db, else
// ~/.local/share/objbench/results.db.
func DefaultPath() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "objbench", "results.db"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home folder for the results database: pass --db: %w", err)
	}
	return filepath.Join(home, ".local", "share", "objbench", "results.db"), nil
}

// Store is an open results database.
type Store struct {
	db   *sql.DB
	path string
	// stmts are the journal's prepared statements (journalStmt).
	stmtMu sync.Mutex
	stmts  map[int]*sql.Stmt
	// RecoverErr is why Open could not make the journals of killed runs
	// into runs (nil: none left); they are tried again at the next Open.
	RecoverErr error
}

// Open creates the folder and database if needed, migrates it, and refuses
// (without modifying it) a database of a newer schema.
func Open(ctx context.Context, path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("results database %s: %w", path, err)
	}
	// A writer waits up to a minute for another process's save (a loaded
	// machine stretched 10 s waits into SQLITE_BUSY).
	// Reads through mmap: listing 10,000 runs made a thousand pread
	// calls and page copies otherwise (bench/runs-query.sh). The file is
	// never truncated (no VACUUM), so mmap's one hazard does not arise.
	dsn := "file:" + path + "?_pragma=busy_timeout(60000)&_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=mmap_size(268435456)" +
		// Writers take the lock when they begin, so that a second process
		// waits (busy_timeout) instead of failing to upgrade a read.
		"&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("results database %s: %w", path, err)
	}
	s := &Store{db: db, path: path}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	// Runs whose process was killed become interrupted runs here, at the
	// next command that opens the database; best-effort: a database held
	// by another process is tried again at the next Open.
	s.RecoverErr = s.recoverJournals(ctx)
	return s, nil
}

func (s *Store) migrate(ctx context.Context) error {
	// Most opens find the schema current: a read says so without taking
	// the write lock.
	var cur int
	if err := s.db.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&cur); err == nil {
		if current, err := s.upToDate(cur); err != nil || current {
			return err
		}
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("results database %s: %w", s.path, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("results database %s: %w", s.path, err)
	}
	var v int
	switch err := tx.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&v); {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version VALUES (0)`); err != nil {
			return err
		}
	case err != nil:
		return fmt.Errorf("results database %s: %w", s.path, err)
	}
	// Another process may have migrated since the read above.
	if current, err := s.upToDate(v); err != nil || current {
		return err // nothing to write: the deferred Rollback ends the transaction
	}
	for i := v; i < len(migrations); i++ {
		if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
			return fmt.Errorf("results database %s: migration %d: %w", s.path, i+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE schema_version SET version = ?`, len(migrations)); err != nil {
		return err
	}
	return tx.Commit()
}

// upToDate says whether schema version v needs no migration; a version
// newer than this objbench knows is refused.
func (s *Store) upToDate(v int) (bool, error) {
	if v > len(migrations) {
		return false, fmt.Errorf("%s is at schema version %d, this objbench knows %d: %w", s.path, v, len(migrations), ErrNewerSchema)
	}
	return v == len(migrations), nil
}

// Close closes the database.
func (s *Store) Close() error {
	s.stmtMu.Lock()
	for _, st := range s.stmts {
		st.Close()
	}
	s.stmts = nil
	s.stmtMu.Unlock()
	return s.db.Close()
}

// Run is one saved run.
type Run struct {
	ID          string
	Command     string
	StartedAt   time.Time
	DurationS   float64
	TargetURL   string
	Provider    string
	Endpoint    string
	Host        string
	Labels      map[string]string
	Interrupted bool
	// Document is the command's JSON document, as --json prints it.
	Document json.RawMessage
}

// Step is one measured step of a run.
type Step struct {
	Index       int
	Workload    string
	Op          string
	SizeBytes   int64
	Concurrency int
	Strategy    string
	Summary     json.RawMessage
	// Histograms are encoded HDR histograms by metric ("ttfb", "total").
	Histograms map[string][]byte
}

// SampleRow is one raw request of a step: the reservoir's own type.
type SampleRow = stats.Kept

// Save stores a run, its steps and samples (nil: none) in one
// transaction. The samples are read one at a time (the reservoir unpacks
// each as it is read), so a run's samples are never all held in their wide
// form.
//
// The run's journal, if it kept one, goes in the same transaction: a run
// is either journaled or saved, never both nor neither.
func (s *Store) Save(ctx context.Context, run Run, steps []Step, samples stats.KeptSeq) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := saveTx(ctx, tx, run, steps, samples); err != nil {
		return err
	}
	if err := deleteJournal(ctx, tx, run.ID); err != nil {
		return err
	}
	return tx.Commit()
}

// saveTx stores a run within tx (see Save).
func saveTx(ctx context.Context, tx *sql.Tx, run Run, steps []Step, samples stats.KeptSeq) error {
	labels, _ := json.Marshal(run.Labels)
	if _, err := tx.ExecContext(ctx, `INSERT INTO runs VALUES (?,?,?,?,?,?,?,?,?,?,?)`, run.ID, run.Command, run.StartedAt.UnixNano(),
		run.DurationS, run.TargetURL, run.Provider, run.Endpoint, run.Host, run.Interrupted, string(labels), []byte(run.Document)); err != nil {
		return fmt.Errorf("save run %s: %w", run.ID, err)
	}
	for k, v := range run.Labels {
		if _, err := tx.ExecContext(ctx, `INSERT INTO run_labels VALUES (?,?,?)`, run.ID, k, v); err != nil {
			return err
		}
	}
	for _, st := range steps {
		if _, err := tx.ExecContext(ctx, `INSERT INTO steps VALUES (?,?,?,?,?,?,?,?)`, run.ID, st.Index, st.Workload, st.Op,
			st.SizeBytes, st.Concurrency, st.Strategy, []byte(st.Summary)); err != nil {
			return fmt.Errorf("save step %d: %w", st.Index, err)
		}
		for m, b := range st.Histograms {
			if _, err := tx.ExecContext(ctx, `INSERT INTO step_histograms VALUES (?,?,?,?)`, run.ID, st.Index, m, b); err != nil {
				return err
			}
		}
	}
	if err := insertSamples(ctx, tx, run.ID, samples); err != nil {
		return fmt.Errorf("save samples: %w", err)
	}
	return nil
}

// sampleColumns is the number of columns of the samples table.
const sampleColumns = 30

// sampleBatch is how many samples one INSERT carries: far fewer statement
// executions than one row each (the cost that dominates in SQLite), and
// well under SQLite's limit of 32766 parameters.
const sampleBatch = 256

// insertSamples writes samples in multi-row INSERTs with prepared
// statements (one for full batches, one for the remainder).
func insertSamples(ctx context.Context, tx *sql.Tx, runID string, samples stats.KeptSeq) error {
	if samples == nil {
		return nil
	}
	stmts := map[int]*sql.Stmt{}
	defer func() {
		for _, st := range stmts {
			st.Close()
		}
	}()
	args := make([]any, 0, sampleBatch*sampleColumns)
	flush := func(n int) error {
		st := stmts[n]
		if st == nil {
			row := "(" + strings.Repeat("?,", sampleColumns-1) + "?)"
			q := "INSERT INTO samples VALUES " + strings.Repeat(row+",", n-1) + row
			var err error
			if st, err = tx.PrepareContext(ctx, q); err != nil {
				return err
			}
			stmts[n] = st
		}
		_, err := st.ExecContext(ctx, args...)
		args = args[:0]
		return err
	}
	n := 0
	for r := range samples {
		p := r.Phases
		args = append(args, runID, r.Step, r.Worker, r.Seq, r.Op, r.Key, r.Size, r.Bytes,
			ns(r.Start), ns(r.FirstByte), ns(r.End), int64(p[0]), int64(p[1]), int64(p[2]), int64(p[3]), int64(p[4]), int64(p[5]), int64(p[6]),
			r.Status, r.ErrClass, r.Err, r.Requests, r.Retries, r.Reconnects, r.Reused, r.WasIdle, int64(r.IdleTime),
			r.Proto, r.TLSVersion, r.RemoteAddr)
		if n++; n == sampleBatch {
			if err := flush(n); err != nil {
				return err
			}
			n = 0
		}
	}
	if n > 0 {
		return flush(n)
	}
	return nil
}

func ns(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromNs(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.Unix(0, v)
}

// Filter selects runs.
type Filter struct {
	Target       string
	Labels       map[string]string
	Since, Until time.Time
	Command      string
	Limit        int
}

// ListQuery is what List asks for with no filter: only the columns a
// listing shows (bench/runs-query.sh times the sqlite3 shell on it).
// Filters go between its two parts.
const (
	listSelect = `SELECT id, command, started_at, duration_s, target_url, interrupted, labels FROM runs WHERE 1=1`
	listOrder  = ` ORDER BY started_at DESC, id DESC`
	ListQuery  = listSelect + listOrder
)

// Listed is one run as List gives it: what a listing shows, with the
// labels as Save stored them (json.Marshal of the map: a JSON object,
// keys sorted). `objbench runs` lists
// thousands, and a map per run cost more than the query.
type Listed struct {
	ID, Command, TargetURL string
	StartedAt              time.Time
	DurationS              float64
	Interrupted            bool
	LabelsJSON             string
}

// Labels decodes the run's labels.
func (l Listed) Labels() map[string]string { return decodeLabels(l.LabelsJSON) }

// List returns matching runs newest first (Get has everything else).
func (s *Store) List(ctx context.Context, f Filter) ([]Listed, error) {
	q := listSelect
	var args []any
	if f.Target != "" {
		q += ` AND instr(target_url, ?) > 0`
		args = append(args, f.Target)
	}
	if f.Command != "" {
		q += ` AND command = ?`
		args = append(args, f.Command)
	}
	if !f.Since.IsZero() {
		q += ` AND started_at >= ?`
		args = append(args, f.Since.UnixNano())
	}
	if !f.Until.IsZero() {
		q += ` AND started_at < ?`
		args = append(args, f.Until.UnixNano())
	}
	for k, v := range f.Labels {
		q += ` AND EXISTS (SELECT 1 FROM run_labels l WHERE l.run_id = runs.id AND l.key = ? AND l.value = ?)`
		args = append(args, k, v)
	}
	q += listOrder
	if f.Limit > 0 {
		q += fmt.Sprintf(` LIMIT %d`, f.Limit)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	defer rows.Close()
	var out []Listed
	for rows.Next() {
		var r Listed
		var started int64
		if err := rows.Scan(&r.ID, &r.Command, &started, &r.DurationS, &r.TargetURL, &r.Interrupted, &r.LabelsJSON); err != nil {
			return nil, fmt.Errorf("list runs: %w", err)
		}
		r.StartedAt = time.Unix(0, started)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	return out, nil
}

// decodeLabels reads the labels column, a flat JSON object of strings as
// json.Marshal wrote it, without encoding/json's reflection: listing
// thousands of runs spent a quarter of its time there. Anything unusual
// goes to encoding/json.
func decodeLabels(s string) map[string]string {
	if s == "{}" || s == "null" || s == "" {
		return nil
	}
	m := map[string]string{}
	rest, ok := strings.CutPrefix(s, "{")
	for ok && rest != "}" {
		var k, v string
		if k, rest, ok = jsonString(rest); !ok {
			break
		}
		if rest, ok = strings.CutPrefix(rest, ":"); !ok {
			break
		}
		if v, rest, ok = jsonString(rest); !ok {
			break
		}
		m[k] = v
		if r, comma := strings.CutPrefix(rest, ","); comma {
			rest = r
		} else if rest != "}" {
			ok = false
		}
	}
	if !ok {
		m = nil
		_ = json.Unmarshal([]byte(s), &m)
	}
	return m
}

// jsonString reads a JSON string without escapes at the start of s.
func jsonString(s string) (string, string, bool) {
	if !strings.HasPrefix(s, `"`) {
		return "", s, false
	}
	end := strings.IndexByte(s[1:], '"')
	if end < 0 || strings.IndexByte(s[1:1+end], '\\') >= 0 {
		return "", s, false // escapes: leave them to encoding/json
	}
	return s[1 : 1+end], s[2+end:], true
}

func scanRun(row *sql.Row) (Run, error) {
	var r Run
	var started int64
	var labels string
	if err := row.Scan(&r.ID, &r.Command, &started, &r.DurationS, &r.TargetURL, &r.Provider, &r.Endpoint, &r.Host, &r.Interrupted, &labels, &r.Document); err != nil {
		return r, err
	}
	r.StartedAt = time.Unix(0, started)
	r.Labels = decodeLabels(labels)
	return r, nil
}

// resolve turns an ID or unique prefix into an ID.
func (s *Store) resolve(ctx context.Context, id string) (string, error) {
	if id == "" {
		return "", fmt.Errorf("empty run ID: %w", ErrNotFound)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM runs WHERE id = ? OR substr(id, 1, ?) = ? ORDER BY id LIMIT 3`, id, len(id), id)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return "", err
		}
		if v == id {
			return v, nil
		}
		ids = append(ids, v)
	}
	switch len(ids) {
	case 0:
		return "", fmt.Errorf("run %q: %w (see 'objbench runs')", id, ErrNotFound)
	case 1:
		return ids[0], nil
	}
	return "", fmt.Errorf("run %q is ambiguous: it begins %s and more; give more of the ID", id, strings.Join(ids, ", "))
}

// Get returns a run (by ID or unique prefix) with its Document and steps.
func (s *Store) Get(ctx context.Context, id string) (Run, []Step, error) {
	full, err := s.resolve(ctx, id)
	if err != nil {
		return Run{}, nil, err
	}
	run, err := scanRun(s.db.QueryRowContext(ctx, `SELECT id, command, started_at, duration_s, target_url, provider, endpoint, host, interrupted, labels, document FROM runs WHERE id = ?`, full))
	if err != nil {
		return Run{}, nil, fmt.Errorf("run %s: %w", full, err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT idx, workload, op, size_bytes, concurrency, strategy, summary FROM steps WHERE run_id = ? ORDER BY idx`, full)
	if err != nil {
		return Run{}, nil, err
	}
	defer rows.Close()
	var steps []Step
	for rows.Next() {
		var st Step
		var sum []byte
		if err := rows.Scan(&st.Index, &st.Workload, &st.Op, &st.SizeBytes, &st.Concurrency, &st.Strategy, &sum); err != nil {
			return Run{}, nil, err
		}
		st.Summary, st.Histograms = sum, map[string][]byte{}
		steps = append(steps, st)
	}
	if err := rows.Err(); err != nil {
		return Run{}, nil, err
	}
	hrows, err := s.db.QueryContext(ctx, `SELECT step_idx, metric, data FROM step_histograms WHERE run_id = ?`, full)
	if err != nil {
		return Run{}, nil, err
	}
	defer hrows.Close()
	for hrows.Next() {
		var idx int
		var m string
		var b []byte
		if err := hrows.Scan(&idx, &m, &b); err != nil {
			return Run{}, nil, err
		}
		for i := range steps {
			if steps[i].Index == idx {
				steps[i].Histograms[m] = b
			}
		}
	}
	return run, steps, hrows.Err()
}

// Samples calls fn for each stored sample of the run, by step then start.
func (s *Store) Samples(ctx context.Context, id string, fn func(SampleRow) error) error {
	full, err := s.resolve(ctx, id)
	if err != nil {
		return err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT step_idx, worker, seq, op, key, size, bytes, start_ns, first_byte_ns, end_ns,
		dns_ns, connect_ns, tls_ns, send_ns, wait100_ns, wait_ns, recv_ns, status, error_class, error, requests, retries, reconnects,
		reused, was_idle, idle_ns, protocol, tls_version, remote_addr FROM samples WHERE run_id = ? ORDER BY step_idx, start_ns`, full)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r SampleRow
		var start, fb, end, idle int64
		var p [nettrace.NumPhases]int64
		if err := rows.Scan(&r.Step, &r.Worker, &r.Seq, &r.Op, &r.Key, &r.Size, &r.Bytes, &start, &fb, &end,
			&p[0], &p[1], &p[2], &p[3], &p[4], &p[5], &p[6], &r.Status, &r.ErrClass, &r.Err, &r.Requests, &r.Retries, &r.Reconnects,
			&r.Reused, &r.WasIdle, &idle, &r.Proto, &r.TLSVersion, &r.RemoteAddr); err != nil {
			return err
		}
		r.Start, r.FirstByte, r.End, r.IdleTime = fromNs(start), fromNs(fb), fromNs(end), time.Duration(idle)
		for i, v := range p {
			r.Phases[i] = time.Duration(v)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// CountSamples returns the number of samples stored for a run.
func (s *Store) CountSamples(ctx context.Context, id string) (int64, error) {
	full, err := s.resolve(ctx, id)
	if err != nil {
		return 0, err
	}
	var n int64
	err = s.db.QueryRowContext(ctx, `SELECT count(*) FROM samples WHERE run_id = ?`, full).Scan(&n)
	return n, err
}

// Delete removes a run and everything of it.
func (s *Store) Delete(ctx context.Context, id string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM runs WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("delete run %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("run %q: %w", id, ErrNotFound)
	}
	return nil
}

// ListingGC stops the collector until the heap nears 512 MiB: `runs` is a
// short process that allocates a little per row and frees nothing, so
// collections cost it a third of its time over 10,000 runs
// (bench/runs-query.sh) and reclaim nothing worth having. GOMEMLIMIT,
// when the user set one lower, still wins.
func ListingGC() {
	const limit = 512 << 20
	if debug.SetMemoryLimit(-1) > limit {
		debug.SetMemoryLimit(limit)
	}
	debug.SetGCPercent(-1)
}
