// One core copying between two 64-byte-aligned buffers with glibc memcpy; the C side of docs/MemcpyLoop.java (docs/windows.md).
// gcc -O2 -o /tmp/memcpy-loop docs/memcpy-loop.c && /tmp/memcpy-loop
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e9+t.tv_nsec;}
int main(){ size_t sizes[]={8192,32768,65536,262144,1048576,4194304};
 char*a=aligned_alloc(64,1<<23),*b=aligned_alloc(64,1<<23); memset(a,1,1<<23); memset(b,2,1<<23);
 for(int r=0;r<3;r++) for(int k=0;k<6;k++){ size_t s=sizes[k]; long it= (long)(2e9/ s); if(it>2000000)it=2000000; double t0=now(); for(long i=0;i<it;i++){ memcpy(b,a,s); __asm__ volatile("":::"memory");} double t=(now()-t0)/it; printf("C %zu %.3f us\n",s,t/1000);} }
