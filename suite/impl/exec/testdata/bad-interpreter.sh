#!/nonexistent/gepcheck-interpreter
{}
