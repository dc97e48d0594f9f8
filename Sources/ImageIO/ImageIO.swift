// Placeholder: PNG/JPEG decoding lands here.
