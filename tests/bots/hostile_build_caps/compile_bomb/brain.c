/* compile_bomb: the compiler reads /dev/zero as a header, for ever: its memory grows until it is stopped. */
#include "/dev/zero"
int main(void) { return 0; }
