/* A shared library that is not a motiond plugin. */
int not_a_plugin(void) { return 42; }
