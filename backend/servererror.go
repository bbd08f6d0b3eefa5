package backend

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/record"
)

// serverError is an error a server reported in a response body or a
// stream event: its message, and the type and code it gave, each "" when
// it gave none.
type serverError struct {
	msg, typ, code string
}

// text formats the error as "type: message (code N)", leaving out what is
// missing.
func (e serverError) text() string { return errorText(e.msg, e.typ, e.code) }

// kind is the kind of an error reported inside a stream: the kind that
// CheckStatus gives the HTTP status the error names, so that a failure
// counts alike by kind whether the server answered it with that status or
// reported it after answering 200 and starting the stream (as vLLM,
// SGLang, llama.cpp and TGI do once a stream has begun, and some before
// any token). The status is the code when it is one (vLLM's, SGLang's and
// llama.cpp's "code": 400), else the one the server answers errors of the
// type with (errorTypes), else that of the kind its code names (the
// Responses API's "code": "server_error"). An error that names none is
// record.ErrStream.
func (e serverError) kind() record.ErrorKind {
	if n, err := strconv.Atoi(e.code); err == nil && n >= 400 && n <= 599 {
		return statusKind(n)
	}
	if n, ok := errorTypes[e.typ]; ok {
		return statusKind(n)
	}
	if n, ok := errorTypes[e.code]; ok {
		// The Responses API names the kind in its code ("server_error").
		return statusKind(n)
	}
	return record.ErrStream
}

// errorTypes are the statuses that servers answer errors of each type
// with, where they answer with a status at all.
var errorTypes = map[string]int{
	// OpenAI's types, which llama.cpp's server and Ollama's /v1 use too.
	"invalid_request_error": http.StatusBadRequest,
	"authentication_error":  http.StatusUnauthorized,
	"permission_error":      http.StatusForbidden,
	"not_found_error":       http.StatusNotFound,
	"server_error":          http.StatusInternalServerError,
	"rate_limit_exceeded":   http.StatusTooManyRequests, // a code, in the Responses API
	// llama.cpp's own (its server's format_error_response).
	"exceed_context_size_error": http.StatusBadRequest,
	"not_supported_error":       http.StatusNotImplemented,
	"unavailable_error":         http.StatusServiceUnavailable,
	// vLLM's and SGLang's, named after Python exceptions.
	"BadRequestError":     http.StatusBadRequest,
	"NotFoundError":       http.StatusNotFound,
	"InternalServerError": http.StatusInternalServerError,
	"NotImplementedError": http.StatusNotImplemented,
	// TGI's error_type, with the statuses its router answers them with
	// (router/src/server.rs, From<InferError>).
	"validation":                http.StatusUnprocessableEntity,
	"overloaded":                http.StatusTooManyRequests,
	"generation":                http.StatusFailedDependency,
	"incomplete_generation":     http.StatusInternalServerError,
	"template_error":            http.StatusUnprocessableEntity,
	"missing_template_variable": http.StatusUnprocessableEntity,
	"tool_error":                http.StatusUnprocessableEntity,
}

// errorText formats a server error as "type: message (code N)", leaving
// out what is missing.
func errorText(msg, typ, code string) string {
	if msg == "" {
		msg = "server reported an error without a message"
	}
	if typ != "" {
		msg = typ + ": " + msg
	}
	if code != "" {
		msg = fmt.Sprintf("%s (code %s)", msg, code)
	}
	return msg
}

// errorValue reads the value of an "error" field: a string (TGI, Ollama),
// an object with message, type and code (OpenAI, vLLM, SGLang, llama.cpp),
// or null, for which ok is false. An object's http_status_code stands for
// its code when it has none (TGI's OpenAI-style error event).
func (d *decoder) errorValue() (e serverError, ok bool, err error) {
	s := &d.s
	switch s.peek() {
	case 'n':
		return e, false, s.literal("null")
	case '"':
		raw, esc, err := s.str()
		if err != nil {
			return e, false, err
		}
		return serverError{msg: textOf(raw, esc)}, true, nil
	case '{':
	default:
		start := s.peekIndex()
		if err := s.skip(); err != nil {
			return e, false, err
		}
		return serverError{msg: "server reported an error: " + string(s.b[start:s.i])}, true, nil
	}
	if err := s.object(); err != nil {
		return e, false, err
	}
	var status string
	for first := true; ; first = false {
		key, more, err := s.field(first)
		if err != nil {
			return e, false, err
		}
		if !more {
			break
		}
		switch string(key) {
		case "message":
			e.msg, err = d.anyText()
		case "type":
			e.typ, err = d.anyText()
		case "code":
			e.code, err = d.anyText()
		case "http_status_code":
			status, err = d.anyText()
		default:
			err = s.skip()
		}
		if err != nil {
			return e, false, err
		}
	}
	if e.code == "" {
		e.code = status
	}
	return e, true, nil
}

// errorObject is what a JSON error document says: the error in its
// "error" field, and its own message, type and code, TGI's error_type and
// FastAPI's detail, each "" when absent.
type errorObject struct {
	nested    serverError
	hasNested bool
	flat      serverError
	errType   string
	detail    string
}

// readErrorObject reads a JSON error document, or its start (a body cut at
// MaxErrorBody reads as far as it goes). It reports false when p is not a
// JSON object.
func readErrorObject(p []byte) (o errorObject, ok bool) {
	var d decoder
	s := &d.s
	s.reset(p)
	if s.object() != nil {
		return o, false
	}
	for first := true; ; first = false {
		key, more, err := s.field(first)
		if err != nil {
			return o, false
		}
		if !more {
			return o, true
		}
		switch string(key) {
		case "error":
			var e serverError
			var got bool
			if e, got, err = d.errorValue(); got {
				o.nested, o.hasNested = e, true
			}
		case "error_type":
			o.errType, err = d.anyText()
		case "message":
			o.flat.msg, err = d.anyText()
		case "type":
			o.flat.typ, err = d.anyText()
		case "code":
			o.flat.code, err = d.anyText()
		case "detail":
			o.detail, err = d.anyText()
		default:
			err = s.skip()
		}
		if err != nil {
			return o, false
		}
	}
}

// eventError reads the payload of an SSE event named error, and of the
// error field that older llama.cpp servers stream an error in, into its
// kind (as serverError.kind) and message: the error in its "error" field,
// else the object's own message, type and code, else its detail, else the
// payload's text, a stream error.
func eventError(p []byte) (record.ErrorKind, string) {
	o, ok := readErrorObject(p)
	var e serverError
	switch {
	case !ok:
		return record.ErrStream, strings.TrimSpace(string(p))
	case o.hasNested:
		e = o.nested
	case o.flat != serverError{} || o.errType != "":
		e = o.flat
	case o.detail != "":
		e.msg = o.detail
	default:
		return record.ErrStream, strings.TrimSpace(string(p))
	}
	if e.typ == "" {
		e.typ = o.errType
	}
	if e.typ == "error" {
		// The Responses API's error event is labelled with the type
		// "error", which names no kind of error.
		e.typ = ""
	}
	return e.kind(), e.text()
}
