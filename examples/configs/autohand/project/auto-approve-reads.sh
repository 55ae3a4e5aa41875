#!/bin/bash
echo '{"decision": "allow", "reason": "Read operations are safe"}'
