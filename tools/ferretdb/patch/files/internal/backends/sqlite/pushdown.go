// Added to FerretDB v1.24.2 by the leadops project (Apache License 2.0, as the module it is added to).

package sqlite

import (
	"context"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode"

	"github.com/FerretDB/FerretDB/internal/backends/sqlite/metadata"
	"github.com/FerretDB/FerretDB/internal/handler/sjson"
	"github.com/FerretDB/FerretDB/internal/types"
	"github.com/FerretDB/FerretDB/internal/util/fsql"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
	"github.com/FerretDB/FerretDB/internal/util/must"
)

// The handler filters and sorts every document a query returns again in Go, so a WHERE
// clause pushed down to SQLite may select a superset of the matching documents, never
// fewer. A condition is "exact" when it selects exactly the matching documents; only an
// exact filter may be counted in SQL. Anything not understood here is left to Go.

// cond is a translated part of a filter.
type cond struct {
	sql   string // "" selects every document
	args  []any
	exact bool
	byID  bool // a lookup of _id values by FerretDB's unique _id index
}

var (
	// dropped is a part left to Go: every document, a superset.
	dropped = cond{}
	// always is a part that matches every document.
	always = cond{exact: true}
	// never is a part that matches no document.
	never = cond{sql: "0", exact: true}
)

func and(parts ...cond) cond {
	res := cond{exact: true}
	var sqls []string

	for _, p := range parts {
		res.exact = res.exact && p.exact
		res.byID = res.byID || p.byID
		if p.sql == "" {
			continue
		}

		sqls = append(sqls, "("+p.sql+")")
		res.args = append(res.args, p.args...)
	}

	res.sql = strings.Join(sqls, " AND ")

	return res
}

func or(parts ...cond) cond {
	res := cond{exact: true}
	var sqls []string

	for _, p := range parts {
		if p.sql == "" {
			if p.exact {
				return always
			}

			return dropped
		}

		res.exact = res.exact && p.exact
		sqls = append(sqls, "("+p.sql+")")
		res.args = append(res.args, p.args...)
	}

	if len(sqls) == 0 {
		return never
	}

	res.sql = strings.Join(sqls, " OR ")

	return res
}

// unsupportedFilter stops the translation of a whole filter: an operator this file does not
// know, or a malformed operand, is left for Go to evaluate (and to report) on every document.
type unsupportedFilter struct{ reason string }

func (e *unsupportedFilter) Error() string { return e.reason }

// knownOperators are query operators left to Go: their part of a filter is dropped, the rest is pushed down.
var knownOperators = map[string]bool{
	"$nin": true, "$not": true, "$type": true, "$size": true, "$all": true, "$elemMatch": true, "$mod": true,
	"$bitsAllClear": true, "$bitsAllSet": true, "$bitsAnyClear": true, "$bitsAnySet": true,
}

// fieldShapes says which odd values a field holds in some document of the collection.
type fieldShapes struct {
	known  bool // an odd-values index answers for the field
	odd    bool // some document holds an odd value (metadata.OddRanks) there
	arrays bool // some document holds an array there
}

// translator pushes the filter and sort of one query down to SQLite.
type translator struct {
	ctx    context.Context
	db     *fsql.DB
	meta   *metadata.Collection
	shapes map[string]fieldShapes
}

func newTranslator(ctx context.Context, db *fsql.DB, meta *metadata.Collection) *translator {
	return &translator{ctx: ctx, db: db, meta: meta, shapes: map[string]fieldShapes{}}
}

// shapesOf asks the field's odd-values index (a partial index, empty unless such values
// exist) which odd values the field holds; a field without one is unknown.
func (t *translator) shapesOf(field string) (fieldShapes, error) {
	if s, ok := t.shapes[field]; ok {
		return s, nil
	}

	var s fieldShapes

	if t.meta.HasTypedIndexOn(field) {
		odd := metadata.OddValuesCondition(field)
		q := fmt.Sprintf(
			`SELECT EXISTS (SELECT 1 FROM %[1]q WHERE %[2]s), EXISTS (SELECT 1 FROM %[1]q WHERE %[2]s AND %[3]s = %[4]d)`,
			t.meta.TableName, odd, t.meta.Rank(field), metadata.RankArray,
		)
		if err := t.db.QueryRowContext(t.ctx, q).Scan(&s.odd, &s.arrays); err != nil {
			return s, lazyerrors.Error(err)
		}

		s.known = true
	}

	t.shapes[field] = s

	return s, nil
}

// withArrays widens a condition on the field's scalar value to the documents holding an array
// there (an array matches when one of its elements does; Go decides), unless there are none.
func (t *translator) withArrays(field string, c cond) (cond, error) {
	if field == "_id" {
		return c, nil // _id is never an array
	}

	s, err := t.shapesOf(field)
	if err != nil {
		return c, err
	}

	if s.known && !s.arrays {
		return c, nil
	}

	return cond{
		sql:  fmt.Sprintf("(%s) OR %s = %d", c.sql, t.meta.Rank(field), metadata.RankArray),
		args: c.args,
	}, nil
}

// filter translates a whole query filter. It returns dropped for a filter it cannot translate.
func (t *translator) filter(filter *types.Document) (cond, error) {
	if filter.Len() == 0 {
		return always, nil
	}

	c, err := t.document(filter)
	if err != nil {
		if _, ok := err.(*unsupportedFilter); ok { //nolint:errorlint // not wrapped
			return dropped, nil
		}

		return dropped, err
	}

	return c, nil
}

func (t *translator) document(filter *types.Document) (cond, error) {
	keys, values := filter.Keys(), filter.Values()
	parts := make([]cond, 0, len(keys))

	for i, key := range keys {
		var part cond
		var err error

		switch {
		case key == "$and" || key == "$or":
			part, err = t.logical(key, values[i])
		case key == "$comment":
			part = always
		case strings.HasPrefix(key, "$"):
			return dropped, &unsupportedFilter{key}
		default:
			part, err = t.field(key, values[i])
		}

		if err != nil {
			return dropped, err
		}

		parts = append(parts, part)
	}

	return and(seekByID(parts)...), nil
}

// seekByID keeps SQLite on the _id index when the filter names _id values: without statistics its planner guesses
// a few rows for any equality on another index's first column, fewer than an $in of many ids, and would then read
// every document of, say, a workspace to find 32 of them. The other parts are wrapped so no index serves them.
func seekByID(parts []cond) []cond {
	byID := false
	for _, p := range parts {
		byID = byID || p.byID
	}

	if !byID {
		return parts
	}

	res := make([]cond, len(parts))

	for i, p := range parts {
		if !p.byID && p.sql != "" {
			p.sql = "coalesce((" + p.sql + "), 0)"
		}

		res[i] = p
	}

	return res
}

func (t *translator) logical(op string, operand any) (cond, error) {
	arr, ok := operand.(*types.Array)
	if !ok || arr.Len() == 0 {
		return dropped, &unsupportedFilter{op}
	}

	parts := make([]cond, 0, arr.Len())

	for i := 0; i < arr.Len(); i++ {
		doc, ok := must.NotFail(arr.Get(i)).(*types.Document)
		if !ok {
			return dropped, &unsupportedFilter{op}
		}

		part, err := t.document(doc)
		if err != nil {
			return dropped, err
		}

		parts = append(parts, part)
	}

	if op == "$and" {
		return and(parts...), nil
	}

	return or(parts...), nil
}

func (t *translator) field(field string, value any) (cond, error) {
	if !metadata.IsPlainField(field) {
		return dropped, nil // a path into embedded documents, or a name that would need quoting
	}

	switch v := value.(type) {
	case *types.Document:
		if v.Len() == 0 || !strings.HasPrefix(v.Keys()[0], "$") {
			return dropped, nil // equality with an embedded document
		}

		return t.operators(field, v)
	case *types.Array:
		return dropped, nil // equality with an array
	case types.Regex:
		return t.regex(field, v.Pattern, v.Options)
	default:
		return t.equal(field, v)
	}
}

func (t *translator) operators(field string, doc *types.Document) (cond, error) {
	keys, values := doc.Keys(), doc.Values()
	parts := make([]cond, 0, len(keys))

	var pattern, options string
	var hasRegex, hasOptions bool

	for i, op := range keys {
		var part cond
		var err error

		switch op {
		case "$eq":
			part, err = t.equal(field, values[i])
		case "$ne":
			part, err = t.notEqual(field, values[i])
		case "$in":
			part, err = t.in(field, values[i])
		case "$gt", "$gte", "$lt", "$lte":
			part, err = t.compare(field, op, values[i])
		case "$exists":
			part = t.exists(field, values[i])
		case "$regex":
			switch v := values[i].(type) {
			case string:
				pattern = v
			case types.Regex:
				pattern, options = v.Pattern, v.Options+options
			default:
				return dropped, &unsupportedFilter{op}
			}

			hasRegex = true
			part = always
		case "$options":
			o, ok := values[i].(string)
			if !ok {
				return dropped, &unsupportedFilter{op}
			}

			options += o
			hasOptions = true
			part = always
		default:
			if !knownOperators[op] {
				return dropped, &unsupportedFilter{op}
			}

			part = dropped
		}

		if err != nil {
			return dropped, err
		}

		parts = append(parts, part)
	}

	if hasOptions && !hasRegex {
		return dropped, &unsupportedFilter{"$options"}
	}

	if hasRegex {
		part, err := t.regex(field, pattern, options)
		if err != nil {
			return dropped, err
		}

		parts = append(parts, part)
	}

	return and(seekByID(parts)...), nil
}

// scalar gives a value's rank and SQL value, for the values the typed expressions compare as FerretDB does.
func scalar(v any) (rank int, val any, ok bool) {
	switch v := v.(type) {
	case string:
		return metadata.RankString, v, true
	case types.ObjectID:
		return metadata.RankObjectID, hex.EncodeToString(v[:]), true
	case bool:
		if v {
			return metadata.RankBool, int64(1), true
		}

		return metadata.RankBool, int64(0), true
	case int32:
		return metadata.RankNumber, int64(v), true
	case int64:
		return metadata.RankNumber, v, true
	case float64:
		if math.IsNaN(v) {
			return 0, nil, false
		}

		return metadata.RankNumber, v, true
	case time.Time:
		return metadata.RankDate, v.UnixMilli(), true
	case types.NullType:
		return metadata.RankNull, nil, true
	default:
		return 0, nil, false
	}
}

// scalarCondition selects the documents whose field holds the scalar value (not inside an array).
func (t *translator) scalarCondition(field string, rank int, val any) cond {
	if rank == metadata.RankNull {
		// the value is NULL too: said for SQLite to seek the index past this column
		return cond{
			sql:   fmt.Sprintf("%s = %d AND %s IS NULL", t.meta.Rank(field), rank, t.meta.Value(field)),
			exact: true,
		}
	}

	return cond{
		sql:   fmt.Sprintf("%s = %d AND %s = ?", t.meta.Rank(field), rank, t.meta.Value(field)),
		args:  []any{val},
		exact: true,
	}
}

func (t *translator) equal(field string, value any) (cond, error) {
	rank, val, ok := scalar(value)
	if !ok {
		return dropped, nil
	}

	c := t.scalarCondition(field, rank, val)

	if field == "_id" && (rank == metadata.RankString || rank == metadata.RankObjectID) {
		// FerretDB's own unique index on _id holds its JSON text
		c.sql = fmt.Sprintf("%s = ? AND %s", metadata.IDColumn, c.sql)
		c.args = append([]any{string(must.NotFail(sjson.MarshalSingleValue(value)))}, c.args...)
		c.byID = true
	}

	return t.withArrays(field, c)
}

func (t *translator) notEqual(field string, value any) (cond, error) {
	rank, val, ok := scalar(value)
	if !ok {
		return dropped, nil
	}

	var c cond
	if rank == metadata.RankNull {
		c = cond{sql: fmt.Sprintf("%s != %d", t.meta.Rank(field), rank), exact: true}
	} else {
		c = t.scalarCondition(field, rank, val)
		c.sql = "NOT (" + c.sql + ")"
	}

	// documents holding an array are kept by the negation already; Go decides for them
	if s, err := t.shapesOf(field); err != nil {
		return dropped, err
	} else if field != "_id" && !(s.known && !s.arrays) {
		c.exact = false
	}

	return c, nil
}

func (t *translator) in(field string, operand any) (cond, error) {
	arr, ok := operand.(*types.Array)
	if !ok {
		return dropped, &unsupportedFilter{"$in"}
	}

	if arr.Len() == 0 {
		return never, nil
	}

	byRank := map[int][]any{}
	var ranks []int
	var ids []any

	for i := 0; i < arr.Len(); i++ {
		v := must.NotFail(arr.Get(i))

		rank, val, ok := scalar(v)
		if !ok {
			return dropped, nil // a regular expression, a document or an array
		}

		if _, seen := byRank[rank]; !seen {
			ranks = append(ranks, rank)
		}

		byRank[rank] = append(byRank[rank], val)

		if rank == metadata.RankString || rank == metadata.RankObjectID {
			ids = append(ids, string(must.NotFail(sjson.MarshalSingleValue(v))))
		}
	}

	groups := make([]cond, 0, len(ranks))

	for _, rank := range ranks {
		vals := byRank[rank]
		if rank == metadata.RankNull {
			groups = append(groups, t.scalarCondition(field, rank, nil))
			continue
		}

		groups = append(groups, cond{
			sql: fmt.Sprintf(
				"%s = %d AND %s IN (%s)",
				t.meta.Rank(field), rank, t.meta.Value(field), placeholders(len(vals)),
			),
			args:  vals,
			exact: true,
		})
	}

	c := or(groups...)

	if field == "_id" && len(ids) == arr.Len() {
		// FerretDB's own unique index on _id holds its JSON text
		c.sql = fmt.Sprintf("%s IN (%s) AND (%s)", metadata.IDColumn, placeholders(len(ids)), c.sql)
		c.args = append(ids, c.args...)
		c.byID = true
	}

	return t.withArrays(field, c)
}

func (t *translator) compare(field, op string, value any) (cond, error) {
	rank, val, ok := scalar(value)
	if !ok || rank == metadata.RankNull {
		return dropped, nil
	}

	sqlOp := map[string]string{"$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}[op]

	return t.withArrays(field, cond{
		sql:   fmt.Sprintf("%s = %d AND %s %s ?", t.meta.Rank(field), rank, t.meta.Value(field), sqlOp),
		args:  []any{val},
		exact: true,
	})
}

func (t *translator) exists(field string, operand any) cond {
	want, ok := operand.(bool)
	if !ok {
		return dropped
	}

	if want {
		return cond{sql: metadata.FieldType(field) + " IS NOT NULL", exact: true}
	}

	return cond{sql: metadata.FieldType(field) + " IS NULL", exact: true}
}

// regex pushes down a regular expression that is a plain substring: case-sensitive as
// instr, case-insensitive (ASCII patterns only) as instr over SQLite's ASCII lower().
func (t *translator) regex(field, pattern, options string) (cond, error) {
	for _, o := range options {
		if !strings.ContainsRune("ims", o) {
			return dropped, nil
		}
	}

	literal, ok := regexLiteral(pattern)
	if !ok {
		return dropped, nil
	}

	rank, value := t.meta.Rank(field), t.meta.Value(field)

	c := cond{
		sql:   fmt.Sprintf("%s = %d AND instr(%s, ?) > 0", rank, metadata.RankString, value),
		args:  []any{literal},
		exact: true,
	}

	if strings.ContainsRune(options, 'i') {
		if !isASCII(literal) {
			return dropped, nil
		}

		c.sql = fmt.Sprintf("%s = %d AND instr(lower(%s), ?) > 0", rank, metadata.RankString, value)
		c.args = []any{strings.ToLower(literal)}

		// Go folds k and s to the Kelvin sign and the long s too, which SQLite's lower() leaves alone
		if strings.ContainsAny(literal, "kKsS") {
			c.sql = fmt.Sprintf(
				"%s = %d AND (instr(lower(%s), ?) > 0 OR instr(%[3]s, '\u212a') > 0 OR instr(%[3]s, '\u017f') > 0)",
				rank, metadata.RankString, value,
			)
			c.exact = false
		}
	}

	return t.withArrays(field, c)
}

// regexLiteral returns the text a pattern matches when it is plain text, with
// punctuation escaped by a backslash at most.
func regexLiteral(pattern string) (string, bool) {
	var b strings.Builder

	escaped := false

	for _, r := range pattern {
		switch {
		case escaped:
			if r > unicode.MaxASCII || !unicode.IsPunct(r) && !unicode.IsSymbol(r) {
				return "", false // \d, \w, \n and the like are classes or escapes
			}

			b.WriteRune(r)
			escaped = false
		case r == '\\':
			escaped = true
		case strings.ContainsRune(`.^$*+?()[]{}|`, r):
			return "", false
		default:
			b.WriteRune(r)
		}
	}

	if escaped {
		return "", false
	}

	return b.String(), true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] > unicode.MaxASCII {
			return false
		}
	}

	return true
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// orderBy pushes a sort on fields down to SQLite when every field has a typed index and no
// document holds an odd value in it, so that SQLite orders exactly as Go would.
func (t *translator) orderBy(sort *types.Document) (string, bool, error) {
	if sort.Len() == 0 {
		return "", false, nil
	}

	keys, values := sort.Keys(), sort.Values()
	columns := make([]string, 0, 2*len(keys))

	for i, field := range keys {
		if !metadata.IsPlainField(field) {
			return "", false, nil
		}

		var order string

		switch values[i] {
		case int64(1):
		case int64(-1):
			order = " DESC"
		default:
			return "", false, nil
		}

		s, err := t.shapesOf(field)
		if err != nil {
			return "", false, err
		}

		if !s.known || s.odd {
			return "", false, nil
		}

		columns = append(columns, t.meta.Rank(field)+order, t.meta.Value(field)+order)
	}

	return " ORDER BY " + strings.Join(columns, ", "), true, nil
}

// selectQuery is the SQL of a query: the filter and sort pushed down as far as they can be.
type selectQuery struct {
	where   string
	args    []any
	orderBy string
	sorted  bool
}

func buildSelectQuery(ctx context.Context, db *fsql.DB, meta *metadata.Collection, filter, natural, fieldSort *types.Document) (*selectQuery, error) { //nolint:lll // for readability
	t := newTranslator(ctx, db, meta)

	c, err := t.filter(filter)
	if err != nil {
		return nil, err
	}

	q := &selectQuery{args: c.args}
	if c.sql != "" {
		q.where = " WHERE " + c.sql
	}

	if natural.Len() != 0 {
		q.orderBy = prepareOrderByClause(natural)
		return q, nil
	}

	if q.orderBy, q.sorted, err = t.orderBy(fieldSort); err != nil {
		return nil, err
	}

	return q, nil
}

// CountExact implements backends.Counter interface.
func (c *collection) CountExact(ctx context.Context, filter *types.Document) (int64, bool, error) {
	db := c.r.DatabaseGetExisting(ctx, c.dbName)
	if db == nil {
		return 0, true, nil
	}

	meta := c.r.CollectionGet(ctx, c.dbName, c.name)
	if meta == nil {
		return 0, true, nil
	}

	cond, err := newTranslator(ctx, db, meta).filter(filter)
	if err != nil {
		return 0, false, lazyerrors.Error(err)
	}

	if !cond.exact {
		return 0, false, nil
	}

	q := fmt.Sprintf(`SELECT COUNT(*) FROM %q`, meta.TableName)
	if cond.sql != "" {
		q += " WHERE " + cond.sql
	}

	var n int64
	if err = db.QueryRowContext(ctx, q, cond.args...).Scan(&n); err != nil {
		return 0, false, lazyerrors.Error(err)
	}

	return n, true, nil
}
