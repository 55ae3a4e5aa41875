package broken

# line 4 calls a function no one defines
x := undefined_function(1)
