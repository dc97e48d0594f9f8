// Placeholder: the verified .tflite reader lands here.
