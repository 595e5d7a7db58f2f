/* Machine stalls without any JVM: N threads read CLOCK_MONOTONIC in a loop for S seconds and count gaps.
   gcc -O2 -o gap docs/gap.c -lpthread && ./gap 2 10   (see docs/benchmarks.md, data path v2 step 3) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <pthread.h>
static long secs;
static long now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1000000000L+t.tv_nsec;}
static void* run(void*a){long end=now()+secs*1000000000L,prev=now(),g100=0,g1=0,lost=0;while(prev<end){long n=now(),d=n-prev;if(d>100000){g100++;lost+=d;if(d>1000000)g1++;}prev=n;}printf("C: gaps>100us %ld, >1ms %ld, lost %.1f ms in %ld s\n",g100,g1,lost/1e6,secs);return 0;}
int main(int c,char**v){int n=atoi(v[1]);secs=atol(v[2]);pthread_t t[8];for(int i=0;i<n;i++)pthread_create(&t[i],0,run,0);for(int i=0;i<n;i++)pthread_join(t[i],0);}
