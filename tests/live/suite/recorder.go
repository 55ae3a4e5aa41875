package suite

// AddRecorder appends the recorder's hooks (event → command) to a Claude-shaped settings
// document's "hooks", one matcher-less group per event after the vector's own groups, for
// agents whose recorder lives in a settings file hookexec also reads (auggie, opencode).
func AddRecorder(settings map[string]any, recorder map[string]string) {
	hooks, _ := settings["hooks"].(map[string]any)
	if hooks == nil {
		hooks = map[string]any{}
	}
	for ev, c := range recorder {
		list, _ := hooks[ev].([]any)
		hooks[ev] = append(list, map[string]any{"hooks": []any{map[string]any{"type": "command", "command": c}}})
	}
	settings["hooks"] = hooks
}
