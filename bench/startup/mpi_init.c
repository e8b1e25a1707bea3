#include <mpi.h>
#include <stdio.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int c,char**v){double t=now();MPI_Init(&c,&v);double t1=now();MPI_Finalize();printf("init %.3f fin %.3f\n",t1-t,now()-t1);return 0;}
