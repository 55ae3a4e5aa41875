// The tool names frameworks' tools usually have, mapped to the canonical names hooks match
// (Claude Code's), so that a matcher written for Claude Code applies unchanged. A gate's
// toolNames adds to and overrides this map (the same map as Python's DEFAULT_TOOL_NAMES).

export const DEFAULT_TOOL_NAMES: Readonly<{ [name: string]: string }> = Object.freeze({
  // run a command
  shell: 'Bash', bash: 'Bash', sh: 'Bash', terminal: 'Bash', run_shell: 'Bash',
  run_command: 'Bash', execute_command: 'Bash', run_shell_command: 'Bash', exec: 'Bash',
  execute: 'Bash', shell_command: 'Bash', local_shell: 'Bash',
  // files
  read_file: 'Read', read: 'Read', file_read: 'Read', view_file: 'Read',
  write_file: 'Write', write: 'Write', file_write: 'Write', create_file: 'Write',
  edit_file: 'Edit', edit: 'Edit', str_replace: 'Edit', replace_in_file: 'Edit',
  apply_patch: 'Edit',
  glob: 'Glob', find_files: 'Glob', list_files: 'Glob',
  grep: 'Grep', search_files: 'Grep',
  // the web
  web_fetch: 'WebFetch', fetch: 'WebFetch', fetch_url: 'WebFetch',
  web_search: 'WebSearch', search_web: 'WebSearch',
});
