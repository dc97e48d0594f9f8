// Placeholder: the interpreter lands here.
