package broken

ok := true
