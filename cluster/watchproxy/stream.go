package watchproxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// stream is one watch response on its way through the proxy: read calls
// split the API server's JSON frames into events and queue them; write
// releases them by the schedule, the queue's head first, with every
// event queued behind it.
type stream struct {
	key     string
	up      io.ReadCloser
	out     *io.PipeWriter
	arrived chan struct{} // an event was queued, or the upstream ended
	space   chan struct{} // the queue was emptied
	done    chan struct{} // closed by stop
	once    sync.Once
	p       *Proxy

	mu     sync.Mutex
	queue  []event
	ended  bool
	endErr error // nil at io.EOF
}

type event struct {
	data  []byte
	at    time.Time // when it reached the proxy
	index int       // in its stream, 0 the first
}

var errEventTooLarge = fmt.Errorf("a watch event of more than %d bytes (docs/limits.md)", MaxEventBytes)

// wrap replaces resp's body with the stream's output.
func (p *Proxy) wrap(resp *http.Response, key string) error {
	r, w := io.Pipe()
	s := &stream{key: key, up: resp.Body, out: w, p: p,
		arrived: make(chan struct{}, 1), space: make(chan struct{}, 1), done: make(chan struct{})}
	p.mu.Lock()
	if len(p.streams) >= MaxStreams {
		p.mu.Unlock()
		return errTooManyStreams
	}
	p.streams[s] = true
	p.mu.Unlock()
	resp.Body = r
	resp.ContentLength = -1
	resp.Header.Del("Content-Length")
	context.AfterFunc(resp.Request.Context(), s.stop)
	go s.read()
	go s.write()
	return nil
}

// stop ends the stream: its upstream closed, its output closed, its
// goroutines told.
func (s *stream) stop() {
	s.once.Do(func() {
		close(s.done)
		s.up.Close()
		s.out.Close()
		s.p.mu.Lock()
		delete(s.p.streams, s)
		s.p.mu.Unlock()
	})
}

// read queues the upstream's events until it ends, waiting while
// MaxHeld are queued.
func (s *stream) read() {
	in := &boundedReader{r: s.up}
	dec := json.NewDecoder(in)
	var err error
	for i := 0; ; i++ {
		var ev json.RawMessage
		if err = dec.Decode(&ev); err != nil {
			break
		}
		in.base = dec.InputOffset()
		if !s.push(event{data: append(ev, '\n'), at: time.Now(), index: i}) {
			return
		}
	}
	if errors.Is(err, io.EOF) {
		err = nil
	}
	s.mu.Lock()
	s.ended, s.endErr = true, err
	s.mu.Unlock()
	signal(s.arrived)
}

// push queues ev; false when the stream stopped while it waited for
// space.
func (s *stream) push(ev event) bool {
	for {
		s.mu.Lock()
		if len(s.queue) < MaxHeld {
			s.queue = append(s.queue, ev)
			s.mu.Unlock()
			signal(s.arrived)
			return true
		}
		s.mu.Unlock()
		signal(s.arrived) // full: the writer releases at once
		select {
		case <-s.space:
		case <-s.done:
			return false
		}
	}
}

// write releases the queue batch by batch: the head is held by its
// draw (or until Release), then it leaves with every event behind it.
// Once the upstream has ended and the queue is empty, the output ends
// as the upstream did.
func (s *stream) write() {
	defer s.stop()
	for {
		head, ok := s.head()
		if !ok {
			s.mu.Lock()
			err := s.endErr
			s.mu.Unlock()
			if err == nil {
				err = io.EOF
			}
			s.out.CloseWithError(err)
			return
		}
		d, released := s.p.hold(s.key, head.index)
		if !s.wait(head.at.Add(d), released) {
			return
		}
		if _, err := s.out.Write(s.take()); err != nil {
			return
		}
	}
}

// head waits for the queue's first event; false when there will be
// none.
func (s *stream) head() (event, bool) {
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			ev := s.queue[0]
			s.mu.Unlock()
			return ev, true
		}
		ended := s.ended
		s.mu.Unlock()
		if ended {
			return event{}, false
		}
		select {
		case <-s.arrived:
		case <-s.done:
			return event{}, false
		}
	}
}

// wait holds the head until, or until released or the queue is full;
// false when the stream stopped.
func (s *stream) wait(until time.Time, released <-chan struct{}) bool {
	d := time.Until(until)
	if d <= 0 {
		return true
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case <-timer.C:
			return true
		case <-released:
			return true
		case <-s.done:
			return false
		case <-s.arrived:
			s.mu.Lock()
			full := len(s.queue) >= MaxHeld
			s.mu.Unlock()
			if full {
				return true
			}
		}
	}
}

// take empties the queue into one batch, in order.
func (s *stream) take() []byte {
	s.mu.Lock()
	var batch []byte
	for _, ev := range s.queue {
		batch = append(batch, ev.data...)
	}
	s.queue = nil
	s.mu.Unlock()
	signal(s.space)
	return batch
}

// signal wakes a waiter of c, if there is none yet to wake.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// boundedReader fails once more than MaxEventBytes have been read past
// the end of the last event decoded (base).
type boundedReader struct {
	r          io.Reader
	read, base int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.read-b.base > MaxEventBytes {
		return 0, errEventTooLarge
	}
	n, err := b.r.Read(p)
	b.read += int64(n)
	return n, err
}
