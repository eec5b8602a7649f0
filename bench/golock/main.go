// SPDX-License-Identifier: Apache-2.0

// golock measures etcd's own Go lock (clientv3/concurrency.Mutex) the way bench_lock measures
// DistributedMutex: contenders on one lock name, each with its own client and session, taking
// and releasing the lock as fast as they can. It prints one JSON object with the window's
// length and every hand-off, which bench_lock merges with the other slices it runs between its
// own, so both clients are measured on the same server in the same run.
//
// Built by scripts/bench against Debian's packaged etcd sources (golang-etcd-server-dev) in
// GOPATH mode, so it needs no network.
package main

import (
	"benchreport"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/clientv3"
	"go.etcd.io/etcd/clientv3/concurrency"
)

type handoffs struct {
	sync.Mutex
	lastUnlock time.Time
	samples    []float64
	cycles     int
}

func (h *handoffs) acquired() {
	h.Lock()
	defer h.Unlock()
	if !h.lastUnlock.IsZero() {
		h.samples = append(h.samples, float64(time.Since(h.lastUnlock).Microseconds())/1000.0)
	}
	h.cycles++
}

func (h *handoffs) released() {
	h.Lock()
	h.lastUnlock = time.Now()
	h.Unlock()
}

func main() {
	endpoints := flag.String("endpoints", "", "comma-separated client URLs of the etcd to measure")
	contenders := flag.Int("contenders", 1, "goroutines contending for the lock, each with its own client")
	windowMs := flag.Int("window-ms", 10000, "measuring window")
	name := flag.String("name", "/bench/golock", "the lock's name (key prefix)")
	flag.Parse()
	if *endpoints == "" || *contenders <= 0 || *windowMs <= 0 {
		benchreport.Fail("golock", "--endpoints, a positive --contenders and a positive --window-ms are needed")
	}

	var measured handoffs
	var running sync.WaitGroup
	stop := make(chan struct{})
	var start time.Time
	ready := make(chan struct{})
	for i := 0; i < *contenders; i++ {
		client, err := clientv3.New(clientv3.Config{Endpoints: strings.Split(*endpoints, ","), DialTimeout: 5 * time.Second})
		if err != nil {
			benchreport.Fail("golock", "connecting: %v", err)
		}
		defer client.Close()
		session, err := concurrency.NewSession(client, concurrency.WithTTL(10))
		if err != nil {
			benchreport.Fail("golock", "session: %v", err)
		}
		defer session.Close()
		mutex := concurrency.NewMutex(session, *name)
		running.Add(1)
		go func() {
			defer running.Done()
			<-ready
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := mutex.Lock(context.Background()); err != nil {
					benchreport.Fail("golock", "lock: %v", err)
				}
				measured.acquired()
				if err := mutex.Unlock(context.Background()); err != nil {
					benchreport.Fail("golock", "unlock: %v", err)
				}
				measured.released()
			}
		}()
	}
	start = time.Now()
	close(ready)
	time.Sleep(time.Duration(*windowMs) * time.Millisecond)
	measured.Lock()
	counted := measured.cycles
	elapsed := time.Since(start)
	samples := append([]float64(nil), measured.samples...)
	measured.Unlock()
	close(stop)
	running.Wait()

	result := map[string]interface{}{
		"client":      "go.etcd.io/etcd/clientv3/concurrency.Mutex",
		"contenders":  *contenders,
		"cycles":      counted,
		"elapsed_ms":  math.Round(float64(elapsed.Microseconds())/100) / 10,
		"handoffs_ms": samples,
	}
	out, _ := json.Marshal(result)
	fmt.Println(string(out))
}
