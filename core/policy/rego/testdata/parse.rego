package parse

deny if {
	input.x ==
}
