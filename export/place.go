package export

// placeColumns place a request in a session, an agent task or among
// several endpoints. A table has each only when one of its rows has a
// value for it, so runs without sessions, tasks or several endpoints keep
// their columns.
var placeColumns = []Column{
	{Name: "session", Kind: KindString, Optional: true, Doc: "the session id of a multi-turn session's turn",
		value: func(r *Row) (any, bool) { return str(r.Session) }},
	{Name: "turn", Kind: KindInt, Optional: true, Doc: "the turn's number in its session, 1 for the first",
		value: func(r *Row) (any, bool) { return int64(r.Turn), r.Turn != 0 }},
	{Name: "task", Kind: KindString, Optional: true, Doc: "the agent task id of a call",
		value: func(r *Row) (any, bool) { return str(r.Task) }},
	{Name: "call", Kind: KindString, Optional: true, Doc: "the call's id in its agent task",
		value: func(r *Row) (any, bool) { return str(r.Call) }},
	{Name: "endpoint", Kind: KindString, Optional: true, Doc: "the endpoint of a run spread over several",
		value: func(r *Row) (any, bool) { return str(r.Endpoint) }},
}

// usedPlaceColumns returns the place columns some row has a value for.
func usedPlaceColumns(rows []Row) []Column {
	var out []Column
	for _, c := range placeColumns {
		for i := range rows {
			if _, ok := c.Value(&rows[i]); ok {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// PlaceColumns returns the columns that place a request in a session, an
// agent task or among endpoints, which a table has when its rows use them:
// for help texts and documentation.
func PlaceColumns() []Column { return append([]Column(nil), placeColumns...) }
