/* Reference for docs/benchmarks.md (issue 20): how fast a process blocked in read(2) on a pipe wakes after a pause, in C, on the same VM. gcc -O2 -o wake docs/wake-pipe.c && ./wake 300 5000000 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <time.h>
#include <sys/wait.h>
static long now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1000000000L+t.tv_nsec;}
int cmp(const void*a,const void*b){long x=*(long*)a,y=*(long*)b;return x<y?-1:x>y;}
int main(int c,char**v){int n=atoi(v[1]);long pause=atol(v[2]);int p[2],q[2];pipe(p);pipe(q);
 if(fork()==0){long t,d;for(int i=0;i<n;i++){read(p[0],&t,8);d=now()-t;write(q[1],&d,8);}return 0;}
 long*r=malloc(8*n);for(int i=0;i<n;i++){struct timespec s={0,pause};nanosleep(&s,0);long t=now();write(p[1],&t,8);read(q[0],&r[i],8);}
 qsort(r,n,8,cmp);printf("pause %ld ns: p50 %.1f us p99 %.1f us max %.1f\n",pause,r[n/2]/1e3,r[n*99/100]/1e3,r[n-1]/1e3);wait(0);return 0;}
