package dir

import data.dir.lib

decision := {"decision": "block", "reason": lib.why} if lib.secret_path(input.tool_input.file_path)
