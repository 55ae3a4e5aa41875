package audit_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/audit"
	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/core/observe"
)

// childEnv makes the test binary a writer process: it fires $AUDIT_CHILD_FIRES times
// through a real engine writing the audit log at $AUDIT_CHILD_LOG, then exits.
const childEnv = "AUDIT_CHILD_LOG"

func TestMain(m *testing.M) {
	if path := os.Getenv(childEnv); path != "" {
		os.Exit(child(path))
	}
	os.Exit(m.Run())
}

func child(path string) int {
	n, _ := strconv.Atoi(os.Getenv("AUDIT_CHILD_FIRES"))
	max, _ := strconv.ParseInt(os.Getenv("AUDIT_CHILD_MAX"), 10, 64)
	dir, _ := os.MkdirTemp("", "audit-child")
	defer os.RemoveAll(dir)
	e, err := engine.Open(engine.Options{Profile: "claude", ProjectDir: dir, Home: dir, Sources: []string{},
		Config:   []byte(`{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"true"}]}]}}`),
		AuditLog: path, AuditMaxBytes: max})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for i := 0; i < n; i++ {
		// paced a little, so that processes interleave rather than one batch each
		if _, err := e.Fire("PreToolUse", fmt.Appendf(nil, `{"session_id":"%d","tool_name":"Bash","tool_input":{"i":%d}}`, os.Getpid(), i)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	if err := e.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// Several real processes append to one log, rotating it as they go: every fire of every
// process is there once, the entries never interleave, and the chain holds across them
// and across the rotated files.
func TestConcurrentProcessesKeepOneChain(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	const procs, each = 4, 150
	var wg sync.WaitGroup
	pids := make([]int, procs)
	for p := 0; p < procs; p++ {
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), childEnv+"="+path, "AUDIT_CHILD_FIRES="+strconv.Itoa(each), "AUDIT_CHILD_MAX=40000")
		out := &lockedBuf{}
		cmd.Stdout, cmd.Stderr = out, out
		require.NoError(t, cmd.Start())
		pids[p] = cmd.Process.Pid
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NoError(t, cmd.Wait(), out.String())
		}()
	}
	wg.Wait()
	rep := verifyOK(t, path)
	assert.EqualValues(t, procs*each, rep.Fires)
	assert.Zero(t, rep.Dropped)
	assert.Greater(t, len(rep.Files), 3, "rotated across processes")
	perPID := map[int]map[string]bool{}
	writers := map[int]bool{}
	last := -1
	switches := 0
	require.NoError(t, audit.ReadFiles(path, func(e audit.Entry) error {
		if perPID[e.PID] == nil {
			perPID[e.PID] = map[string]bool{}
		}
		assert.False(t, perPID[e.PID][e.InputSHA256], "a fire written twice")
		perPID[e.PID][e.InputSHA256] = true
		writers[e.PID] = true
		if e.PID != last {
			switches++
			last = e.PID
		}
		return nil
	}))
	for _, pid := range pids {
		assert.Len(t, perPID[pid], each, "pid %d", pid)
	}
	t.Logf("%d processes, %d fires, %d files, the writer changed %d times along the chain", procs, rep.Fires, len(rep.Files), switches)
	assert.Greater(t, switches, procs, "the processes' batches interleave")
	for _, f := range rep.Files[:len(rep.Files)-1] {
		st, err := os.Stat(f)
		require.NoError(t, err)
		assert.LessOrEqual(t, st.Size(), int64(40000), f)
	}
}

type lockedBuf struct {
	mu sync.Mutex
	b  []byte
}

func (b *lockedBuf) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.b = append(b.b, p...)
	return len(p), nil
}

func (b *lockedBuf) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.b)
}

// Two engines of one process on one log, firing at once (the race detector watches).
func TestConcurrentEnginesInOneProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	const engines, each = 3, 60
	var wg sync.WaitGroup
	for i := 0; i < engines; i++ {
		e := openEngine(t, path, func(o *engine.Options) { o.AuditMaxBytes = 10000 })
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < each; j++ {
				f := fires[j%len(fires)]
				_, err := e.Fire(f.event, []byte(f.payload))
				assert.NoError(t, err)
			}
			assert.NoError(t, e.Close())
		}()
	}
	wg.Wait()
	rep := verifyOK(t, path)
	assert.EqualValues(t, engines*each, rep.Fires)
	assert.Greater(t, len(rep.Files), 1)
}

// Rotation keeps the chain; a rotated file removed, or the oldest ones, is found.
func TestRotationKeepsTheChain(t *testing.T) {
	path := writeLog(t, 60, func(o *engine.Options) { o.AuditMaxBytes = 4000 })
	files, err := audit.Files(path)
	require.NoError(t, err)
	require.Greater(t, len(files), 4)
	assert.Equal(t, path+".1", files[0])
	assert.Equal(t, path, files[len(files)-1])
	rep, err := audit.Verify(path, audit.VerifyOptions{})
	require.NoError(t, err)
	require.Nil(t, rep.Problem)
	assert.EqualValues(t, 60, rep.Fires)
	assert.Equal(t, files, rep.Files)
	// each rotated file's first entry links to the last of the one before
	var prevLast audit.Entry
	for i, f := range files {
		var first, last audit.Entry
		fh, err := os.Open(f)
		require.NoError(t, err)
		require.NoError(t, audit.Read(fh, func(e audit.Entry) error {
			if first.Seq == 0 {
				first = e
			}
			last = e
			return nil
		}))
		fh.Close()
		if i > 0 {
			assert.Equal(t, prevLast.Hash, first.Prev, f)
			assert.Equal(t, prevLast.Seq+1, first.Seq, f)
		}
		prevLast = last
	}

	require.NoError(t, os.Rename(files[2], files[2]+".away"))
	rep, err = audit.Verify(path, audit.VerifyOptions{})
	require.NoError(t, err)
	require.NotNil(t, rep.Problem)
	assert.Equal(t, files[3], rep.Problem.File)
	assert.Equal(t, 1, rep.Problem.Line)
	assert.Contains(t, rep.Problem.Error(), "does not link")
	require.NoError(t, os.Rename(files[2]+".away", files[2]))

	require.NoError(t, os.Remove(files[0]))
	rep, err = audit.Verify(path, audit.VerifyOptions{})
	require.NoError(t, err)
	require.NotNil(t, rep.Problem)
	assert.Equal(t, files[1], rep.Problem.File)
	assert.Contains(t, rep.Problem.Error(), "the chain starts at entry")
}

// A writer that finds a partial last line (a crash mid-write) cuts it, records that, and
// the chain goes on from the last whole entry.
func TestTornTailIsCutAndRecorded(t *testing.T) {
	path := writeLog(t, 3)
	good, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, append(good, `{"v":1,"seq":4,"kind":"fire","ti`...), 0o600))
	rep, err := audit.Verify(path, audit.VerifyOptions{})
	require.NoError(t, err)
	require.NotNil(t, rep.Problem)
	assert.True(t, rep.TornTail)
	assert.Equal(t, 4, rep.Problem.Line)
	assert.EqualValues(t, 3, rep.Entries)

	e := openEngine(t, path)
	_, err = e.Fire("PreToolUse", []byte(fires[1].payload))
	require.NoError(t, err)
	require.NoError(t, e.Close())
	rep = verifyOK(t, path)
	assert.EqualValues(t, 1, rep.Torn)
	assert.EqualValues(t, 4, rep.Fires)
	got := readAll(t, path)
	require.Len(t, got, 5)
	assert.Equal(t, audit.KindTorn, got[3].Kind)
	assert.EqualValues(t, len(`{"v":1,"seq":4,"kind":"fire","ti`), got[3].TornBytes)
}

// A slow disk (here: another process's writer holding the log's lock, as one stuck on a
// slow disk does) never holds a fire up: fires go on at their own pace, what does not fit
// the queue is dropped, counted, and recorded by a gap entry once the lock is free.
func TestSlowDiskNeverBlocksAFire(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	release := holdLock(t, path)

	const queue, n = 16, 300
	sink, err := audit.Open(audit.Options{Path: path, Queue: queue})
	require.NoError(t, err)
	e := openEngine(t, "", func(o *engine.Options) {
		o.Sinks = []observe.Sink{sink}
		o.Config = []byte(`{"hooks":{"PreToolUse":[{"hooks":[{"type":"builtin","command":"allow"}]}]}}`)
	})
	var worst time.Duration
	start := time.Now()
	for i := 0; i < n; i++ {
		t0 := time.Now()
		_, err := e.Fire("PreToolUse", fmt.Appendf(nil, `{"session_id":"s","tool_name":"Bash","tool_input":{"i":%d}}`, i))
		require.NoError(t, err)
		worst = max(worst, time.Since(t0))
	}
	elapsed := time.Since(start)
	st := sink.Stats()
	t.Logf("%d fires in %v with the log locked; slowest %v; dropped %d", n, elapsed, worst, st.Dropped)
	assert.Less(t, worst, 200*time.Millisecond, "no fire waits for the disk")
	assert.Zero(t, st.Written, "nothing written while the lock is held")
	assert.GreaterOrEqual(t, st.Dropped, uint64(n-queue-1-256))

	// a Close with the disk still stuck gives up at its deadline, and after MaxCloseWait
	// whatever the deadline
	t0 := time.Now()
	require.Error(t, sink.Close(time.Now().Add(100*time.Millisecond)))
	assert.Less(t, time.Since(t0), time.Second)
	other, err := audit.Open(audit.Options{Path: path})
	require.NoError(t, err)
	other.Observe(&observe.Fire{Event: "Stop"})
	t0 = time.Now()
	require.Error(t, other.Close(time.Now().Add(time.Hour)))
	waited := time.Since(t0)
	assert.GreaterOrEqual(t, waited, audit.MaxCloseWait)
	assert.Less(t, waited, audit.MaxCloseWait+time.Second)
	release()
	require.NoError(t, e.Close()) // the sink is closed already: a no-op for it

	require.Eventually(t, func() bool {
		rep, err := audit.Verify(path, audit.VerifyOptions{})
		return err == nil && rep.Problem == nil && rep.Fires+rep.Dropped == n+1
	}, 5*time.Second, 20*time.Millisecond, "every fire is written or counted in a gap")
	rep, _ := audit.Verify(path, audit.VerifyOptions{})
	assert.Positive(t, rep.Dropped)
	assert.EqualValues(t, n+1, rep.Fires+rep.Dropped)
	got := readAll(t, path)
	gaps := 0
	for _, e := range got {
		if e.Kind == audit.KindGap {
			gaps++
			assert.Contains(t, e.Reason, "decisions were not written")
		}
	}
	assert.Positive(t, gaps)
}

// Observe's own cost, the bound the docs state: one non-blocking channel send.
func TestObserveBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	release := holdLock(t, path)
	sink, err := audit.Open(audit.Options{Path: path})
	require.NoError(t, err)
	f := &observe.Fire{Event: "PreToolUse", Payload: []byte(`{}`)}
	took := make([]time.Duration, 20000) // far past the queue: most are drops
	for i := range took {
		t0 := time.Now()
		sink.Observe(f)
		took[i] = time.Since(t0)
	}
	slices.Sort(took)
	p50, p99 := took[len(took)/2], took[len(took)*99/100]
	t.Logf("Observe with the disk stuck, 20000 calls: p50 %v, p99 %v, slowest %v (scheduling)", p50, p99, took[len(took)-1])
	assert.Less(t, p99, time.Millisecond)
	release()
	require.NoError(t, sink.Close(time.Now().Add(5*time.Second)))
	rep := verifyOK(t, path)
	assert.EqualValues(t, 20000, rep.Fires+rep.Dropped)
}
