! A Fortran MPI program that calls MPI_ALLTOALL, MPI_ALLTOALLV, MPI_ALLTOALLW,
! MPI_ALLGATHER and MPI_ALLGATHERV (MPI_IN_PLACE included) and checks the results against
! expected values. It knows nothing of xchg. One source, three bindings:
!   -DXCHG_USE_F08: use mpi_f08;  -DXCHG_USE_MPI: use mpi;  neither: mpif.h.
! Rank 0 prints one PASS/FAIL line per check, the number of calls it made of
! each collective ("calls alltoall=... alltoallv=... allgather=... alltoallw=... allgatherv=...", per
! rank, erroneous ones included) and "fortran: N passed, N failed".
program collectives
#if defined(XCHG_USE_F08)
  use mpi_f08
#elif defined(XCHG_USE_MPI)
  use mpi
#endif
  implicit none
#if !defined(XCHG_USE_F08) && !defined(XCHG_USE_MPI)
  include 'mpif.h'
#endif
#if defined(XCHG_USE_F08)
  type(MPI_Comm) :: comm
  type(MPI_Datatype), allocatable :: wt(:)
#else
  integer :: comm
  integer, allocatable :: wt(:)
#endif
  integer, parameter :: n = 3
  integer :: rank, nprocs, ierr, p, i, cls, total, off
  integer :: npassed, nfailed, n_a2a, n_a2av, n_ag, n_a2aw, n_agv
  logical :: ok
  integer, allocatable :: sbuf(:,:), rbuf(:,:), ag(:,:), vs(:), vr(:), sec(:,:), rsec(:,:)
  integer, allocatable :: sc(:), sd(:), rc(:), rd(:), rdb(:), gv(:)
  double precision, allocatable :: ds(:,:), dr(:,:)

  npassed = 0; nfailed = 0; n_a2a = 0; n_a2av = 0; n_ag = 0; n_a2aw = 0; n_agv = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, comm, ierr)
  allocate(sbuf(n, 0:nprocs-1), rbuf(n, 0:nprocs-1), ag(2, 0:nprocs-1))
  allocate(ds(2, 0:nprocs-1), dr(2, 0:nprocs-1), sec(2, 0:nprocs-1), rsec(2, 0:nprocs-1))
  allocate(sc(0:nprocs-1), sd(0:nprocs-1), rc(0:nprocs-1), rd(0:nprocs-1), rdb(0:nprocs-1))
  allocate(wt(0:nprocs-1))

  ! MPI_ALLTOALL, INTEGER, on MPI_COMM_WORLD
  do p = 0, nprocs - 1
    do i = 1, n
      sbuf(i, p) = val(rank, p, i)
    end do
  end do
  rbuf = -1
  call MPI_Alltoall(sbuf, n, MPI_INTEGER, rbuf, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  n_a2a = n_a2a + 1
  ok = ierr == MPI_SUCCESS
  do p = 0, nprocs - 1
    do i = 1, n
      ok = ok .and. rbuf(i, p) == val(p, rank, i)
    end do
  end do
  call check('MPI_ALLTOALL integer', ok)

  ! MPI_ALLTOALL, DOUBLE PRECISION, on a duplicate
  do p = 0, nprocs - 1
    ds(1, p) = 0.5d0 * val(rank, p, 1)
    ds(2, p) = -0.25d0 * val(rank, p, 2)
  end do
  dr = 0
  call MPI_Alltoall(ds, 2, MPI_DOUBLE_PRECISION, dr, 2, MPI_DOUBLE_PRECISION, comm, ierr)
  n_a2a = n_a2a + 1
  ok = ierr == MPI_SUCCESS
  do p = 0, nprocs - 1
    ok = ok .and. dr(1, p) == 0.5d0 * val(p, rank, 1) .and. dr(2, p) == -0.25d0 * val(p, rank, 2)
  end do
  call check('MPI_ALLTOALL double precision', ok)

  ! MPI_ALLTOALL with MPI_IN_PLACE
  do p = 0, nprocs - 1
    do i = 1, n
      rbuf(i, p) = val(rank, p, i)
    end do
  end do
  call MPI_Alltoall(MPI_IN_PLACE, 0, MPI_INTEGER, rbuf, n, MPI_INTEGER, comm, ierr)
  n_a2a = n_a2a + 1
  ok = ierr == MPI_SUCCESS
  do p = 0, nprocs - 1
    do i = 1, n
      ok = ok .and. rbuf(i, p) == val(p, rank, i)
    end do
  end do
  call check('MPI_ALLTOALL MPI_IN_PLACE', ok)

  ! MPI_ALLTOALL on non-contiguous array sections (the compiler copies them
  ! in and out). Not where mpi_f08 passes them as descriptors
  ! (MPI_SUBARRAYS_SUPPORTED): MPICH 4.0.2 gets that case wrong by itself.
#if defined(XCHG_USE_F08)
  if (.not. MPI_SUBARRAYS_SUPPORTED) then
#endif
  do p = 0, nprocs - 1
    sec(1, p) = val(rank, p, 7)
    sec(2, p) = -2
  end do
  rsec = -1
  call MPI_Alltoall(sec(1, :), 1, MPI_INTEGER, rsec(2, :), 1, MPI_INTEGER, comm, ierr)
  n_a2a = n_a2a + 1
  ok = ierr == MPI_SUCCESS
  do p = 0, nprocs - 1
    ok = ok .and. rsec(2, p) == val(p, rank, 7) .and. rsec(1, p) == -1
  end do
  call check('MPI_ALLTOALL array sections', ok)
#if defined(XCHG_USE_F08)
  end if
#endif

  ! MPI_ALLTOALLV: counts mod(s + 2d, 3) (zeros included), a gap of one
  ! element between send blocks, receive blocks in reverse rank order
  off = 0
  do p = 0, nprocs - 1
    sc(p) = mod(rank + 2 * p, 3)
    sd(p) = off
    off = off + sc(p) + 1
  end do
  allocate(vs(0:off))
  vs = -7
  do p = 0, nprocs - 1
    do i = 1, sc(p)
      vs(sd(p) + i - 1) = val(rank, p, i)
    end do
  end do
  off = 0
  do p = nprocs - 1, 0, -1
    rc(p) = mod(p + 2 * rank, 3)
    rd(p) = off
    off = off + rc(p) + 1
  end do
  total = off
  allocate(vr(0:total))
  vr = -9
  call MPI_Alltoallv(vs, sc, sd, MPI_INTEGER, vr, rc, rd, MPI_INTEGER, comm, ierr)
  n_a2av = n_a2av + 1
  ok = ierr == MPI_SUCCESS
  do p = 0, nprocs - 1
    do i = 1, rc(p)
      ok = ok .and. vr(rd(p) + i - 1) == val(p, rank, i)
    end do
    ok = ok .and. vr(rd(p) + rc(p)) == -9     ! the gap is untouched
  end do
  call check('MPI_ALLTOALLV uneven counts and gaps', ok)

  ! MPI_ALLTOALLV with MPI_IN_PLACE: symmetric counts mod(s + d, 3) + 1
  off = 0
  do p = 0, nprocs - 1
    rc(p) = mod(rank + p, 3) + 1
    rd(p) = off
    off = off + rc(p) + 1
  end do
  deallocate(vr)
  allocate(vr(0:off))
  vr = -9
  do p = 0, nprocs - 1
    do i = 1, rc(p)
      vr(rd(p) + i - 1) = val(rank, p, i)
    end do
  end do
  call MPI_Alltoallv(MPI_IN_PLACE, sc, sd, MPI_INTEGER, vr, rc, rd, MPI_INTEGER, comm, ierr)
  n_a2av = n_a2av + 1
  ok = ierr == MPI_SUCCESS
  do p = 0, nprocs - 1
    do i = 1, rc(p)
      ok = ok .and. vr(rd(p) + i - 1) == val(p, rank, i)
    end do
    ok = ok .and. vr(rd(p) + rc(p)) == -9
  end do
  call check('MPI_ALLTOALLV MPI_IN_PLACE', ok)

  ! MPI_ALLTOALLW with MPI_IN_PLACE, the same blocks: displacements in bytes
  ! and a datatype per peer (INTEGER or REAL, by mod(s + d, 2) on both ends;
  ! the bits move unchanged)
  do p = 0, nprocs - 1
    do i = 1, rc(p)
      vr(rd(p) + i - 1) = val(rank, p, i)
    end do
    rdb(p) = 4 * rd(p)
    if (mod(rank + p, 2) == 0) then
      wt(p) = MPI_INTEGER
    else
      wt(p) = MPI_REAL
    end if
  end do
  call MPI_Alltoallw(MPI_IN_PLACE, sc, sd, wt, vr, rc, rdb, wt, comm, ierr)
  n_a2aw = n_a2aw + 1
  ok = ierr == MPI_SUCCESS
  do p = 0, nprocs - 1
    do i = 1, rc(p)
      ok = ok .and. vr(rd(p) + i - 1) == val(p, rank, i)
    end do
    ok = ok .and. vr(rd(p) + rc(p)) == -9
  end do
  call check('MPI_ALLTOALLW MPI_IN_PLACE, a datatype per peer', ok)

  ! MPI_ALLGATHER and MPI_ALLGATHER with MPI_IN_PLACE
  sbuf(1, 0) = val(rank, 0, 1)
  sbuf(2, 0) = -rank
  ag = -1
  call MPI_Allgather(sbuf, 2, MPI_INTEGER, ag, 2, MPI_INTEGER, comm, ierr)
  n_ag = n_ag + 1
  ok = ierr == MPI_SUCCESS
  do p = 0, nprocs - 1
    ok = ok .and. ag(1, p) == val(p, 0, 1) .and. ag(2, p) == -p
  end do
  call check('MPI_ALLGATHER', ok)

  rbuf = -1
  rbuf(1, rank) = val(rank, 1, 2)
  rbuf(2, rank) = 3 * rank
  rbuf(3, rank) = 5 * rank
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rbuf, n, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  n_ag = n_ag + 1
  ok = ierr == MPI_SUCCESS
  do p = 0, nprocs - 1
    ok = ok .and. rbuf(1, p) == val(p, 1, 2) .and. rbuf(2, p) == 3 * p .and. rbuf(3, p) == 5 * p
  end do
  call check('MPI_ALLGATHER MPI_IN_PLACE', ok)

  ! MPI_ALLGATHERV: rank p contributes mod(p, 3) integers (some none), blocks
  ! in reverse rank order with a gap of one; then the same with MPI_IN_PLACE
  total = 0
  do p = nprocs - 1, 0, -1
    rc(p) = mod(p, 3)
    rd(p) = total
    total = total + rc(p) + 1
  end do
  allocate(gv(0:total))
  do i = 1, rc(rank)
    sbuf(i, 0) = val(rank, 7, i)
  end do
  do off = 0, 1
    gv = -9
    if (off == 1) then
      do i = 1, rc(rank)
        gv(rd(rank) + i - 1) = val(rank, 7, i)
      end do
      call MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, gv, rc, rd, MPI_INTEGER, comm, &
                          ierr)
    else
      call MPI_Allgatherv(sbuf, rc(rank), MPI_INTEGER, gv, rc, rd, MPI_INTEGER, comm, ierr)
    end if
    n_agv = n_agv + 1
    ok = ierr == MPI_SUCCESS
    do p = 0, nprocs - 1
      do i = 1, rc(p)
        ok = ok .and. gv(rd(p) + i - 1) == val(p, 7, i)
      end do
      ok = ok .and. gv(rd(p) + rc(p)) == -9
    end do
    if (off == 1) then
      call check('MPI_ALLGATHERV MPI_IN_PLACE, uneven and zero counts', ok)
    else
      call check('MPI_ALLGATHERV uneven and zero counts', ok)
    end if
  end do

#if defined(XCHG_USE_F08)
  ! mpi_f08: ierror is optional
  rbuf = -1
  call MPI_Alltoall(sbuf, 0, MPI_INTEGER, rbuf, 0, MPI_INTEGER, comm)
  n_a2a = n_a2a + 1
  do p = 0, nprocs - 1
    do i = 1, n
      sbuf(i, p) = val(rank, p, i)
    end do
  end do
  call MPI_Alltoall(sbuf, n, MPI_INTEGER, rbuf, n, MPI_INTEGER, comm)
  n_a2a = n_a2a + 1
  ok = .true.
  do p = 0, nprocs - 1
    do i = 1, n
      ok = ok .and. rbuf(i, p) == val(p, rank, i)
    end do
  end do
  call check('MPI_Alltoall without ierror (mpi_f08)', ok)
#endif

  ! An erroneous call under MPI_ERRORS_RETURN returns the error class
  call MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN, ierr)
  call MPI_Alltoall(sbuf, -1, MPI_INTEGER, rbuf, -1, MPI_INTEGER, comm, ierr)
  n_a2a = n_a2a + 1
  cls = MPI_SUCCESS
  if (ierr /= MPI_SUCCESS) call MPI_Error_class(ierr, cls, i)
  call check('MPI_ALLTOALL negative count returns MPI_ERR_COUNT', &
             ierr /= MPI_SUCCESS .and. cls == MPI_ERR_COUNT)

  if (rank == 0) then
    write(*, '(a,i0,a,i0,a,i0,a,i0,a,i0,a)') 'calls alltoall=', n_a2a, ' alltoallv=', n_a2av, &
                                  ' allgather=', n_ag, ' alltoallw=', n_a2aw, &
                                  ' allgatherv=', n_agv, &
                                  ' (per rank; 1 erroneous alltoall)'
    write(*, '(a,i0,a,i0,a)') 'fortran: ', npassed, ' passed, ', nfailed, ' failed'
  end if
  call MPI_Comm_free(comm, ierr)
  call MPI_Finalize(ierr)
  if (nfailed > 0) stop 1

contains

  integer function val(src, dst, i)
    integer, intent(in) :: src, dst, i
    val = src * 10000 + dst * 100 + i
  end function val

  subroutine check(what, good)
    character(len=*), intent(in) :: what
    logical, intent(in) :: good
    logical :: all_good
    integer :: e
    call MPI_Allreduce(good, all_good, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, e)
    if (all_good) then
      npassed = npassed + 1
      if (rank == 0) write(*, '(a,a)') 'PASS ', what
    else
      nfailed = nfailed + 1
      if (rank == 0) write(*, '(a,a)') 'FAIL ', what
    end if
  end subroutine check

end program collectives
