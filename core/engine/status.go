package engine

// What a host shows or does for Claude Code's statusMessage and asyncRewake: the agent's
// spinner and its wake-up are the host's to draw and to do, so the engine tells the listener.
//
//   kind "status": {event, hook, status_message} as a hook with a statusMessage starts;
//   kind "rewake": {event, hook, message, result} when an asyncRewake hook exits 2 in the
//                  background; message is its stderr, or its stdout when stderr is empty.

import "strings"

// announceStatus queues a hook's statusMessage for the listener as the hook starts.
func (e *Engine) announceStatus(event string, h *hook) {
	if h.cfg.StatusMessage == "" {
		return
	}
	e.mu.Lock()
	listening := e.listen != nil
	e.mu.Unlock()
	if !listening {
		return
	}
	msg, _ := marshal(struct {
		Event         string `json:"event"`
		Hook          string `json:"hook"`
		StatusMessage string `json:"status_message"`
	}{event, h.cfg.ID, h.cfg.StatusMessage})
	e.queue("status", msg)
}

// rewake is the wake-up an asyncRewake hook's result asks for, if any.
func rewake(event string, h *hook, hr *HookResult) ([]byte, bool) {
	if !h.cfg.AsyncRewake || hr.ExitCode != 2 {
		return nil, false
	}
	text := strings.TrimSpace(hr.Stderr)
	if text == "" {
		text = strings.TrimSpace(hr.Stdout)
	}
	msg, _ := marshal(struct {
		Event   string     `json:"event"`
		Hook    string     `json:"hook"`
		Message string     `json:"message"`
		Result  HookResult `json:"result"`
	}{event, h.cfg.ID, text, *hr})
	return msg, true
}
