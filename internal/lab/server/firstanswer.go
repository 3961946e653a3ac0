package server

import "net/http"

// firstAnswer runs before once, ahead of the response's first byte (its
// header, body or flush): the lab's service time and its GCS uploads'
// body-first answer both hold a response there.
type firstAnswer struct {
	http.ResponseWriter
	before func()
}

func (f *firstAnswer) run() {
	if b := f.before; b != nil {
		f.before = nil
		b()
	}
}

func (f *firstAnswer) WriteHeader(code int) {
	f.run()
	f.ResponseWriter.WriteHeader(code)
}

func (f *firstAnswer) Write(p []byte) (int, error) {
	f.run()
	return f.ResponseWriter.Write(p)
}

// Flush and Unwrap keep http.ResponseController working through the wrapper.
func (f *firstAnswer) Flush() {
	f.run()
	if fl, ok := f.ResponseWriter.(http.Flusher); ok {
		fl.Flush()
	}
}

func (f *firstAnswer) Unwrap() http.ResponseWriter { return f.ResponseWriter }
