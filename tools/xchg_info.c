#include <stdio.h>
#include "xchg.h"
int main(int argc, char **argv){MPI_Init(&argc,&argv);int n;XCHG_Algorithm_count("alltoallv",&n);
for(int i=0;i<n;i++){char a[64],p[1024];XCHG_Algorithm_describe("alltoallv",i,a,64,p,1024);printf("%s %s\n",a,p);}
MPI_Finalize();}
