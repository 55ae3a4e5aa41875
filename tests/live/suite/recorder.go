package suite

// AddRecorder appends the recorder's hooks (event → command) to a Claude-shaped settings
// document's "hooks", one matcher-less group per event after the vector's own groups (an
// empty document: the recorder's alone).
func AddRecorder(settings map[string]any, recorder map[string]string) {
	AddNamedRecorder(settings, recorder, "")
}

// AddNamedRecorder is AddRecorder with each handler named (Gemini CLI's and Qwen Code's
// "name", which their disabled lists match; "": no name).
func AddNamedRecorder(settings map[string]any, recorder map[string]string, name string) {
	hooks, _ := settings["hooks"].(map[string]any)
	if hooks == nil {
		hooks = map[string]any{}
	}
	for ev, c := range recorder {
		list, _ := hooks[ev].([]any)
		handler := map[string]any{"type": "command", "command": c}
		if name != "" {
			handler["name"] = name
		}
		hooks[ev] = append(list, map[string]any{"hooks": []any{handler}})
	}
	settings["hooks"] = hooks
}
