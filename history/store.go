package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // registers "sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Dialect names the SQL database behind a Store.
type Dialect string

// Dialects a Store speaks.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// ConnectTimeout bounds each connection to a PostgreSQL store whose URL
// gives no connect_timeout: the dial, TLS and the server's greeting.
var ConnectTimeout = 10 * time.Second

// EnvStore is the environment variable that names the store when no
// --history flag does.
const EnvStore = "GOODPUT_HISTORY"

// Store is a run history in a SQL database. It is safe for concurrent use.
// The caller must call Close when done.
type Store struct {
	db      *sql.DB
	dialect Dialect
	where   string // the store's location for errors, without a password
}

// Open opens the store that dsn names and migrates its schema to the
// latest version: a postgres:// or postgresql:// URL is a PostgreSQL
// database; anything else is the path of a SQLite file, created (with its
// directory) when missing. An empty file becomes the store; a file that
// holds anything but a SQLite database is refused and left as it is. The
// caller must Close the store.
func Open(ctx context.Context, dsn string) (*Store, error) {
	return open(ctx, dsn, len(migrations))
}

// OpenExisting is Open for reading a store. A SQLite file must hold a
// goodput history already, and is opened read-only: a path that does not
// exist, an empty file or one that holds something else is an error, so
// that a mistyped path is not read as a history without runs and a file
// given by mistake is never written. A PostgreSQL database must hold
// goodput's tables already. A history of an older schema is brought up
// to date, as Open does. The caller must Close the store.
func OpenExisting(ctx context.Context, dsn string) (*Store, error) {
	if DialectOf(dsn) == Postgres {
		return openExistingPostgres(ctx, dsn)
	}
	if strings.TrimSpace(dsn) == "" {
		return Open(ctx, dsn)
	}
	where := Redact(dsn)
	path, err := sqlitePath(dsn)
	if err != nil {
		return nil, err
	}
	switch f, err := inspectSQLite(path, where); {
	case err != nil:
		return nil, err
	case f == noFile:
		return nil, fmt.Errorf("history %s: no such file (bench --history and sweep --history record runs there)", where)
	case f == emptyFile:
		return nil, fmt.Errorf("history %s is empty: no run is recorded in it (bench --history and sweep --history record runs there)", where)
	}
	s, err := openReadOnly(ctx, path, where)
	if errors.Is(err, errOlderSchema) {
		return Open(ctx, dsn)
	}
	return s, err
}

// postgresStore returns the store of a postgres:// dsn, not yet
// connected.
func postgresStore(dsn string) (*Store, error) {
	s := &Store{dialect: Postgres, where: Redact(dsn)}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("history %s: %w", s.where, err)
	}
	// A server that takes the connection and never answers would hold
	// the run forever: connect_timeout, when the URL does not give one.
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = ConnectTimeout
	}
	s.db = stdlib.OpenDB(*cfg)
	return s, nil
}

// openExistingPostgres is OpenExisting for a PostgreSQL database: one
// that holds no goodput history (no schema_migrations table where its
// search_path looks) is an error, not given goodput's tables by a
// command that only reads.
func openExistingPostgres(ctx context.Context, dsn string) (*Store, error) {
	s, err := postgresStore(dsn)
	if err != nil {
		return nil, err
	}
	var found bool
	err = s.db.QueryRowContext(ctx, `SELECT to_regclass('schema_migrations') IS NOT NULL`).Scan(&found)
	switch {
	case err != nil:
		err = fmt.Errorf("history %s: %w", s.where, err)
	case !found:
		err = fmt.Errorf("history %s holds no goodput history: no run is recorded in it (bench --history and sweep --history record runs there)", s.where)
	default:
		return s.ready(ctx, len(migrations))
	}
	s.db.Close()
	return nil, err
}

// sqlitePath is the file a SQLite store's dsn names: a path, or one
// after sqlite: or file:. Behind file: or sqlite: a ? would begin SQLite's
// URI parameters, which goodput sets itself: such a dsn is an error
// rather than a file whose name ends in them. (A bare path keeps every
// character: sqliteURL escapes it.)
func sqlitePath(dsn string) (string, error) {
	path := dsn
	for _, p := range []string{"sqlite:", "file:"} {
		path = strings.TrimPrefix(path, p)
	}
	if path == dsn {
		return path, nil
	}
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		return "", fmt.Errorf("history %s: parameters after %q are not taken (goodput sets SQLite's own): give the file's path alone", dsn, path[i:i+1])
	}
	// file:///abs/path is the URI form of /abs/path.
	if rest, ok := strings.CutPrefix(path, "//"); ok {
		if !strings.HasPrefix(rest, "/") {
			return "", fmt.Errorf("history %s: a file URI names no host: give file:///path or the path alone", dsn)
		}
		path = rest
	}
	if path == "" {
		return "", fmt.Errorf("history %s: no file named after the prefix", dsn)
	}
	return path, nil
}

// open opens the store and migrates it to version to.
func open(ctx context.Context, dsn string, to int) (*Store, error) {
	if strings.TrimSpace(dsn) == "" {
		return nil, errors.New("history: no store given: want a SQLite file path or a postgres:// URL")
	}
	s := &Store{dialect: DialectOf(dsn), where: Redact(dsn)}
	if s.dialect == Postgres {
		s, err := postgresStore(dsn)
		if err != nil {
			return nil, err
		}
		return s.ready(ctx, to)
	}
	path, err := sqlitePath(dsn)
	if err != nil {
		return nil, err
	}
	if f, err := inspectSQLite(path, s.where); err != nil {
		return nil, err
	} else if f == databaseFile {
		if err := foreignSQLite(ctx, path, s.where); err != nil {
			return nil, err
		}
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("history %s: %w", s.where, err)
		}
	}
	// SQLite answers SQLITE_BUSY at once, without waiting out the busy
	// timeout, where waiting could deadlock: two connections to a new
	// file that both read it and then both want to write (turning its
	// journal to WAL, creating the schema). One of them then opens again
	// after a short random pause, within the busy timeout.
	deadline := time.Now().Add(sqliteBusyTimeout)
	for {
		db, err := sql.Open("sqlite", sqliteURL(path, false))
		if err != nil {
			return nil, fmt.Errorf("history %s: %w", s.where, err)
		}
		// One writer at a time: SQLite serialises writes anyway, and
		// a single connection keeps the pragmas on every statement.
		db.SetMaxOpenConns(1)
		s.db = db
		st, err := s.ready(ctx, to)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return st, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("history %s: %w", s.where, ctx.Err())
		case <-time.After(time.Duration(5+rand.IntN(45)) * time.Millisecond):
		}
	}
}

// foreignSQLite refuses the SQLite database at path when it holds another
// program's tables and no goodput history, reading it only: a file is one
// database, so a path given by mistake would otherwise get goodput's
// tables among the other program's (and opening it to write would turn
// its journal to WAL). A PostgreSQL database is often shared on purpose,
// and is not checked.
func foreignSQLite(ctx context.Context, path, where string) error {
	db, err := sql.Open("sqlite", sqliteURL(path, true))
	if err != nil {
		return fmt.Errorf("history %s: %w", where, err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	switch {
	case isNotADB(err):
		return notDatabase(where, err)
	case err != nil:
		return fmt.Errorf("history %s: %w", where, err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return fmt.Errorf("history %s: %w", where, err)
		}
		if n == "schema_migrations" {
			return nil
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("history %s: %w", where, err)
	}
	if len(names) == 0 {
		return nil
	}
	if len(names) > 3 {
		names = append(names[:3], "…")
	}
	return notHistory(where, "another program's SQLite database (tables "+strings.Join(names, ", ")+")")
}

// sqliteBusyTimeout is how long a SQLite statement waits for another
// process's write to end before it fails.
const sqliteBusyTimeout = 10 * time.Second

// sqliteURL is the driver's URL for the file at path: a busy timeout lets
// several goodput processes share the file, WAL lets them read while one
// writes, and transactions take the write lock when they begin. A
// read-only URL opens the file with SQLite's mode=ro, which never creates
// the file and fails every write to it; it leaves the journal mode as the
// file has it (Open made it WAL), since setting it may write. A reader of
// a WAL file creates SQLite's -wal and -shm files beside it when they are
// missing, and leaves them: the next writer to close the store removes
// them.
func sqliteURL(path string, readOnly bool) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", sqliteBusyTimeout.Milliseconds()))
	if readOnly {
		q.Set("mode", "ro")
	} else {
		q.Add("_pragma", "foreign_keys(1)")
		q.Add("_pragma", "journal_mode(wal)")
		q.Set("_txlock", "immediate")
	}
	return "file:" + uriPath.Replace(path) + "?" + q.Encode()
}

// uriPath escapes what SQLite's URI filenames read as other than the
// path: % begins an escape, ? the query and # a fragment.
var uriPath = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")

// sqliteFile is what the path of a SQLite store holds before it is
// opened.
type sqliteFile int

const (
	noFile       sqliteFile = iota // nothing: Open creates the store
	emptyFile                      // no bytes: Open makes it the store
	databaseFile                   // a SQLite database, by its header
)

// sqliteHeader begins every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

// inspectSQLite says what path holds, reading no more than its header.
// Anything but nothing, an empty file or a SQLite database is an error
// naming the store as where: the driver would fail on it without naming
// the mistake, or wait on a pipe.
func inspectSQLite(path, where string) (sqliteFile, error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return noFile, nil
	case err != nil:
		return 0, fmt.Errorf("history %s: %w", where, err)
	case fi.IsDir():
		return 0, fmt.Errorf("history %s is a directory: give the SQLite file in it", where)
	case !fi.Mode().IsRegular():
		return 0, notHistory(where, "it is not a regular file")
	case fi.Size() == 0:
		return emptyFile, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("history %s: %w", where, err)
	}
	defer f.Close()
	head := make([]byte, len(sqliteHeader))
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return 0, fmt.Errorf("history %s: %w", where, err)
	}
	if string(head[:n]) != sqliteHeader {
		return 0, notHistory(where, "it is not a SQLite file")
	}
	return databaseFile, nil
}

// notHistory is the error for a store location that holds something
// else, saying why.
func notHistory(where, why string) error {
	return fmt.Errorf("history %s is not a goodput history database: %s", where, why)
}

// notDatabase is notHistory for a file that begins with SQLite's header
// but that SQLite, whose error is err, does not read as a database.
func notDatabase(where string, err error) error {
	return notHistory(where, "it begins like a SQLite file but is not one: "+err.Error())
}

// errOlderSchema says that a store opened read-only has an older schema
// than this goodput reads, which only a writable open can migrate.
var errOlderSchema = errors.New("older schema")

// openReadOnly opens the SQLite database at path read-only and checks
// that it is a goodput history of the schema this goodput writes; one of
// an older schema is errOlderSchema.
func openReadOnly(ctx context.Context, path, where string) (*Store, error) {
	db, err := sql.Open("sqlite", sqliteURL(path, true))
	if err != nil {
		return nil, fmt.Errorf("history %s: %w", where, err)
	}
	db.SetMaxOpenConns(1)
	s := &Store{db: db, dialect: SQLite, where: where}
	if err := s.readable(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// readable checks that the SQLite database of s holds a goodput history
// at the schema this goodput writes, without writing to it.
func (s *Store) readable(ctx context.Context) error {
	var tables int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`).Scan(&tables)
	switch {
	case isNotADB(err):
		return notDatabase(s.where, err)
	case err != nil:
		return fmt.Errorf("history %s: %w", s.where, err)
	case tables == 0:
		return notHistory(s.where, "a SQLite database without goodput's tables")
	}
	v, err := version(ctx, s.db)
	if err == nil {
		err = newerSchema(v)
	}
	if err != nil {
		return fmt.Errorf("history %s: %w", s.where, err)
	}
	if v < len(migrations) {
		return errOlderSchema
	}
	return nil
}

// isBusy reports whether err is SQLite's SQLITE_BUSY, with any extended
// code.
func isBusy(err error) bool {
	var coded interface{ Code() int }
	return errors.As(err, &coded) && coded.Code()&0xff == sqlite3.SQLITE_BUSY
}

// isNotADB reports whether err is SQLite's SQLITE_NOTADB: the file is not
// a database, though it may begin with SQLite's header.
func isNotADB(err error) bool {
	var coded interface{ Code() int }
	return errors.As(err, &coded) && coded.Code()&0xff == sqlite3.SQLITE_NOTADB
}

// ready connects s.db and migrates it to version to; on failure it closes
// s.db.
func (s *Store) ready(ctx context.Context, to int) (*Store, error) {
	err := s.db.PingContext(ctx)
	if err == nil {
		err = s.migrate(ctx, to)
	}
	switch {
	case err == nil:
		return s, nil
	case isNotADB(err):
		err = notDatabase(s.where, err)
	default:
		err = fmt.Errorf("history %s: %w", s.where, err)
	}
	s.db.Close()
	return nil, err
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Dialect returns the kind of database behind s.
func (s *Store) Dialect() Dialect { return s.dialect }

// String names the store, without a password.
func (s *Store) String() string { return s.where }

// DialectOf says which database dsn names.
func DialectOf(dsn string) Dialect {
	l := strings.ToLower(dsn)
	if strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://") {
		return Postgres
	}
	return SQLite
}

// Redact returns dsn with any password replaced, for messages.
func Redact(dsn string) string {
	if DialectOf(dsn) != Postgres {
		return dsn
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres://…"
	}
	return u.Redacted()
}

// rebind rewrites the ? placeholders of query for the store's dialect:
// PostgreSQL numbers them ($1, $2, …). The queries of this package hold no
// ? inside literals.
func (s *Store) rebind(query string) string {
	if s.dialect != Postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
