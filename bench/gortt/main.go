// SPDX-License-Identifier: Apache-2.0

// gortt measures round trips of etcd's own Go client (clientv3) the way bench_rtt measures
// QEtcd::Client: one operation (put, get or txn), a number of callers sharing one client, each
// sending its next request as soon as the previous one is answered. It prints one JSON object
// with every latency of its window, which bench_rtt merges with the other slices it runs between
// its own, so both clients meet the same server in the same run.
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
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/clientv3"
)

const value = "value-of-sixteen"

// One request of the chosen kind for caller c's n-th turn.
func request(client *clientv3.Client, op, prefix string, c, n int) error {
	ctx := context.Background()
	own := fmt.Sprintf("%s/%d", prefix, c)
	switch op {
	case "put":
		_, err := client.Put(ctx, own, value)
		return err
	case "get":
		_, err := client.Get(ctx, own)
		return err
	case "txn":
		// A lock's acquisition: create the key if nobody has, else read it. Every key is new,
		// so the put branch runs, as it does for each lock taken.
		key := fmt.Sprintf("%s/txn/%d", own, n)
		response, err := client.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
			Then(clientv3.OpPut(key, value)).
			Else(clientv3.OpGet(key)).
			Commit()
		if err == nil && !response.Succeeded {
			return fmt.Errorf("the fresh key %s existed", key)
		}
		return err
	}
	return fmt.Errorf("unknown operation %q", op)
}

func main() {
	endpoints := flag.String("endpoints", "", "comma-separated client URLs of the etcd to measure")
	op := flag.String("op", "put", "put, get or txn")
	callers := flag.Int("callers", 1, "goroutines sharing the one client, each with one request outstanding")
	windowMs := flag.Int("window-ms", 5000, "measuring window")
	warmup := flag.Int("warmup-ms", 1000, "requests before the window opens, not counted")
	serverPid := flag.Int("server-pid", 0, "etcd's process, whose CPU time and read and write calls are taken with the client's (0: none)")
	prefix := flag.String("prefix", "", "key prefix, new to the server; caller i uses PREFIX/i (default: one of the moment)")
	flag.Parse()
	if *prefix == "" {
		*prefix = fmt.Sprintf("/bench/rtt/go/%d", time.Now().UnixNano())
	}
	if *endpoints == "" || *callers <= 0 || *windowMs <= 0 || *warmup < 0 {
		benchreport.Fail("gortt", "--endpoints, a positive --callers and --window-ms and a non-negative --warmup-ms are needed")
	}

	client, err := clientv3.New(clientv3.Config{Endpoints: strings.Split(*endpoints, ","), DialTimeout: 5 * time.Second})
	if err != nil {
		benchreport.Fail("gortt", "connecting: %v", err)
	}
	defer client.Close()
	for c := 0; c < *callers; c++ {
		if _, err := client.Put(context.Background(), fmt.Sprintf("%s/%d", *prefix, c), value); err != nil {
			benchreport.Fail("gortt", "filling: %v", err)
		}
	}

	var mutex sync.Mutex
	var samples []float64
	start := time.Now().Add(time.Duration(*warmup) * time.Millisecond)
	end := start.Add(time.Duration(*windowMs) * time.Millisecond)
	// Taken by the first answer inside the window and the first after it, as bench_rtt does.
	var cpuAtStart, cpuAtEnd int64 = -1, -1
	var serverAtStart, serverAtEnd benchreport.ServerCost
	serverCost := func() benchreport.ServerCost {
		if *serverPid <= 0 {
			return benchreport.ServerCost{}
		}
		return benchreport.ServerCostOf(*serverPid)
	}
	var running sync.WaitGroup
	for c := 0; c < *callers; c++ {
		running.Add(1)
		go func(c int) {
			defer running.Done()
			var mine []float64
			for n := 0; ; n++ {
				sent := time.Now()
				if !sent.Before(end) {
					break
				}
				if err := request(client, *op, *prefix, c, n); err != nil {
					benchreport.Fail("gortt", "%s: %v", *op, err)
				}
				answered := time.Now()
				if !answered.Before(start) && answered.Before(end) {
					if atomic.LoadInt64(&cpuAtStart) < 0 && atomic.CompareAndSwapInt64(&cpuAtStart, -1, -2) {
						serverAtStart = serverCost()
						atomic.StoreInt64(&cpuAtStart, benchreport.ProcessCPUMicros())
					}
					mine = append(mine, float64(answered.Sub(sent).Nanoseconds())/1e6)
				} else if !answered.Before(end) && atomic.LoadInt64(&cpuAtEnd) < 0 && atomic.CompareAndSwapInt64(&cpuAtEnd, -1, -2) {
					serverAtEnd = serverCost()
					atomic.StoreInt64(&cpuAtEnd, benchreport.ProcessCPUMicros())
				}
			}
			mutex.Lock()
			samples = append(samples, mine...)
			mutex.Unlock()
		}(c)
	}
	running.Wait()

	cpuUs := int64(0)
	var server benchreport.ServerCost
	if len(samples) > 0 {
		cpuUs = cpuAtEnd - cpuAtStart
		server = benchreport.ServerCost{
			CPUMicros: serverAtEnd.CPUMicros - serverAtStart.CPUMicros,
			Reads:     serverAtEnd.Reads - serverAtStart.Reads,
			Writes:    serverAtEnd.Writes - serverAtStart.Writes,
		}
	}
	result := map[string]interface{}{
		"client":       "go.etcd.io/etcd/clientv3",
		"op":           *op,
		"callers":      *callers,
		"window_ms":    *windowMs,
		"cpu_us":       cpuUs,
		"server":       server,
		"latencies_ms": samples,
	}
	out, _ := json.Marshal(result)
	fmt.Println(string(out))
}
