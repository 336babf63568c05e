#ifndef PARAMS_H
#define PARAMS_H
int get_int_parameter(const char *text);
#endif
