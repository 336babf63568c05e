/* Included by a relative path from app/, not through -I: only the compile line's other units say that
   check_all is the program's. */
#ifndef CHECKS_H
#define CHECKS_H
int check_all(int error);
#endif
