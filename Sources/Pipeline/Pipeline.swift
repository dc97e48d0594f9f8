// Placeholder: the landmark pipelines land here.
