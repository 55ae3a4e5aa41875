package suite

import (
	"encoding/json"
	"fmt"

	"github.com/hookexec/hookexec/core/engine"
)

// ModelVerdict is what a prompt or agent hook's model answered, as the evaluator gives it to
// hookexec: side is the model's answer ({"ok", "reason"}; "" is {"ok": true}), and the whole
// answer goes to hookexec as the model gave it (fields beyond ok and reason included).
func ModelVerdict(side string) (engine.Outcome, error) {
	if side == "" {
		side = `{"ok": true}`
	}
	var ans struct {
		OK     bool   `json:"ok"`
		Reason string `json:"reason"`
	}
	if err := json.Unmarshal([]byte(side), &ans); err != nil {
		return engine.Outcome{}, fmt.Errorf("the model's answer is not a verdict: %w", err)
	}
	out := engine.Verdict(ans.OK, ans.Reason)
	out.Stdout = []byte(side)
	return out, nil
}
