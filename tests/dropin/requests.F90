! A Fortran MPI program that calls the nonblocking MPI_IALLTOALL,
! MPI_IALLTOALLV, MPI_IALLTOALLW, MPI_IALLGATHER (MPI_IN_PLACE) and
! MPI_IALLGATHERV and, with -DXCHG_HAVE_INIT (an MPI-4 library), the
! persistent MPI_ALLTOALL_INIT and MPI_ALLGATHERV_INIT, or with
! -DXCHG_HAVE_MPIX_INIT (Open MPI 4.1's extension) MPIX_ALLTOALL_INIT and
! MPIX_ALLGATHERV_INIT, completed by MPI_WAITALL together with its own
! MPI_ISEND/MPI_IRECV, MPI_WAIT, an MPI_TEST loop, MPI_TESTALL, MPI_WAITANY
! and MPI_STARTALL; persistent requests freed with MPI_REQUEST_FREE. Every result is checked against the
! values it computes itself. It knows nothing of xchg. One source, three
! bindings: -DXCHG_USE_F08: use mpi_f08; -DXCHG_USE_MPI: use mpi; neither:
! mpif.h. Rank 0 prints one PASS/FAIL line per check, the calls it made per
! form ("calls alltoall=0 ialltoall=... alltoall_init=...") and
! "frequests: N passed, N failed".
#if defined(XCHG_HAVE_MPIX_INIT)
#define XCHG_HAVE_INIT
#define XCHG_ALLTOALL_INIT MPIX_Alltoall_init
#define XCHG_ALLGATHERV_INIT MPIX_Allgatherv_init
#else
#define XCHG_ALLTOALL_INIT MPI_Alltoall_init
#define XCHG_ALLGATHERV_INIT MPI_Allgatherv_init
#endif
program requests
#if defined(XCHG_USE_F08)
  use mpi_f08
#if defined(XCHG_HAVE_MPIX_INIT)
  use mpi_f08_ext
#endif
#elif defined(XCHG_USE_MPI)
  use mpi
#if defined(XCHG_HAVE_MPIX_INIT)
  use mpi_ext
#endif
#endif
  implicit none
#if !defined(XCHG_USE_F08) && !defined(XCHG_USE_MPI)
  include 'mpif.h'
#if defined(XCHG_HAVE_MPIX_INIT)
  include 'mpif-ext.h'
#endif
#endif
#if defined(XCHG_USE_F08)
  type(MPI_Comm) :: comm
  type(MPI_Request) :: reqs(6), req
#else
  integer :: comm
  integer :: reqs(6), req
#endif
  integer, parameter :: n = 2
  integer :: rank, nprocs, ierr, p, i, off, total, start, left, right, ring_in, ring_out
  integer :: npassed, nfailed, n_ia2a, n_ia2av, n_ia2aw, n_iag, n_iagv, n_a2a_init, n_agv_init
  integer :: idx, isize ! idx: MPI_Waitany
  logical :: ok, flag
#if defined(XCHG_USE_F08)
  type(MPI_Datatype), allocatable :: wt(:)
#else
  integer, allocatable :: wt(:)
#endif
  integer, allocatable :: wsd(:), wrd(:)
  integer, allocatable :: sbuf(:,:), rbuf(:,:), gbuf(:,:), vs(:), vr(:), gv(:)
  integer :: gs(3)
  integer, allocatable :: sc(:), sd(:), rc(:), rd(:), gc(:), gd(:)

  npassed = 0; nfailed = 0
  n_ia2a = 0; n_ia2av = 0; n_ia2aw = 0; n_iag = 0; n_iagv = 0; n_a2a_init = 0; n_agv_init = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, comm, ierr)
  left = mod(rank + nprocs - 1, nprocs)
  right = mod(rank + 1, nprocs)
  allocate(sbuf(n, 0:nprocs-1), rbuf(n, 0:nprocs-1), gbuf(n, 0:nprocs-1))
  allocate(sc(0:nprocs-1), sd(0:nprocs-1), rc(0:nprocs-1), rd(0:nprocs-1))
  allocate(gc(0:nprocs-1), gd(0:nprocs-1))

  ! alltoallv layout: counts mod(s + 2d, 3) (zeros included), gaps of one
  off = 0
  do p = 0, nprocs - 1
    sc(p) = mod(rank + 2 * p, 3)
    sd(p) = off
    off = off + sc(p) + 1
  end do
  allocate(vs(0:off))
  off = 0
  do p = nprocs - 1, 0, -1
    rc(p) = mod(p + 2 * rank, 3)
    rd(p) = off
    off = off + rc(p) + 1
  end do
  total = off
  allocate(vr(0:total))
  ! allgatherv layout: block p has mod(p, 3) elements (zeros), gaps of two
  off = 0
  do p = 0, nprocs - 1
    gc(p) = mod(p, 3)
    gd(p) = off
    off = off + gc(p) + 2
  end do
  allocate(gv(0:off))
  ! alltoallw: the alltoallv layout, displacements in bytes
  isize = storage_size(rank) / 8
  allocate(wt(0:nprocs-1), wsd(0:nprocs-1), wrd(0:nprocs-1))
  wt = MPI_INTEGER
  wsd = sd * isize
  wrd = rd * isize

  ! Four nonblocking collectives and the program's own ring in one MPI_WAITALL
  call fill(0)
  call MPI_Irecv(ring_in, 1, MPI_INTEGER, left, 3, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Ialltoall(sbuf, n, MPI_INTEGER, rbuf, n, MPI_INTEGER, comm, reqs(2), ierr)
  n_ia2a = n_ia2a + 1
  call MPI_Ialltoallv(vs, sc, sd, MPI_INTEGER, vr, rc, rd, MPI_INTEGER, comm, reqs(3), ierr)
  n_ia2av = n_ia2av + 1
  call MPI_Iallgather(MPI_IN_PLACE, 0, MPI_INTEGER, gbuf, n, MPI_INTEGER, comm, reqs(4), ierr)
  n_iag = n_iag + 1
  call MPI_Iallgatherv(gs, gc(rank), MPI_INTEGER, gv, gc, gd, MPI_INTEGER, comm, &
                       reqs(5), ierr)
  n_iagv = n_iagv + 1
  ring_out = rank
  call MPI_Isend(ring_out, 1, MPI_INTEGER, right, 3, MPI_COMM_WORLD, reqs(6), ierr)
  call MPI_Waitall(6, reqs, MPI_STATUSES_IGNORE, ierr)
  call check('MPI_IALLTOALL, MPI_IALLTOALLV, MPI_IALLGATHER (in place), MPI_IALLGATHERV ' // &
             'and MPI_ISEND/MPI_IRECV, MPI_WAITALL', results(0) .and. ring_in == left)

  ! One by MPI_WAIT, one by an MPI_TEST loop
  call fill(1)
  call MPI_Ialltoallv(vs, sc, sd, MPI_INTEGER, vr, rc, rd, MPI_INTEGER, comm, req, ierr)
  n_ia2av = n_ia2av + 1
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  ok = req == MPI_REQUEST_NULL
  call MPI_Ialltoall(sbuf, n, MPI_INTEGER, rbuf, n, MPI_INTEGER, comm, req, ierr)
  n_ia2a = n_ia2a + 1
  flag = .false.
  do while (.not. flag)
    call MPI_Test(req, flag, MPI_STATUS_IGNORE, ierr)
  end do
  call MPI_Iallgather(MPI_IN_PLACE, 0, MPI_INTEGER, gbuf, n, MPI_INTEGER, comm, req, ierr)
  n_iag = n_iag + 1
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Iallgatherv(gs, gc(rank), MPI_INTEGER, gv, gc, gd, MPI_INTEGER, comm, &
                       req, ierr)
  n_iagv = n_iagv + 1
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call check('nonblocking collectives by MPI_WAIT and an MPI_TEST loop', &
             ok .and. results(1) .and. req == MPI_REQUEST_NULL)

  ! MPI_IALLTOALLW by an MPI_TESTALL loop, MPI_IALLTOALL by MPI_WAITANY
  call fill(6)
  call MPI_Ialltoallw(vs, sc, wsd, wt, vr, rc, wrd, wt, comm, reqs(1), ierr)
  n_ia2aw = n_ia2aw + 1
  call MPI_Ialltoall(sbuf, n, MPI_INTEGER, rbuf, n, MPI_INTEGER, comm, reqs(2), ierr)
  n_ia2a = n_ia2a + 1
  flag = .false.
  do while (.not. flag)
    call MPI_Testall(1, reqs(1:1), flag, MPI_STATUSES_IGNORE, ierr)
  end do
  call MPI_Waitany(1, reqs(2:2), idx, MPI_STATUS_IGNORE, ierr)
  ! idx is not checked: MPICH 4.0's mpi_f08 MPI_Waitany returns C's index (0)
  ok = reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL
  call check('MPI_IALLTOALLW by MPI_TESTALL, MPI_IALLTOALL by MPI_WAITANY', &
             ok .and. a2a_ok(6) .and. a2av_ok(6))

#if defined(XCHG_HAVE_INIT)
  ! Persistent: init once, three starts with new data, free
  call fill(2)
  call XCHG_ALLTOALL_INIT(sbuf, n, MPI_INTEGER, rbuf, n, MPI_INTEGER, comm, MPI_INFO_NULL, &
                          reqs(1), ierr)
  n_a2a_init = n_a2a_init + 1
  call XCHG_ALLGATHERV_INIT(gs, gc(rank), MPI_INTEGER, gv, gc, gd, MPI_INTEGER, &
                            comm, MPI_INFO_NULL, reqs(2), ierr)
  n_agv_init = n_agv_init + 1
  ok = .true.
  do start = 3, 5
    call fill(start)
    call MPI_Startall(2, reqs, ierr)
    if (start == 4) then
      call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)
      call MPI_Wait(reqs(2), MPI_STATUS_IGNORE, ierr)
    else
      call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
    end if
    ok = ok .and. a2a_ok(start) .and. agv_ok(start)
  end do
  call MPI_Request_free(reqs(1), ierr)
  call MPI_Request_free(reqs(2), ierr)
  call check('MPI_ALLTOALL_INIT, MPI_ALLGATHERV_INIT: 3 starts, new data, MPI_REQUEST_FREE', &
             ok .and. reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL)
#endif

  if (rank == 0) then
    write(*, '(a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0)') 'calls alltoall=0 ialltoall=', n_ia2a, &
        ' ialltoallv=', n_ia2av, ' ialltoallw=', n_ia2aw, ' iallgather=', n_iag, &
        ' iallgatherv=', n_iagv, &
        ' alltoall_init=', n_a2a_init, ' allgatherv_init=', n_agv_init
    write(*, '(a,i0,a,i0,a)') 'frequests: ', npassed, ' passed, ', nfailed, ' failed'
  end if
  call MPI_Comm_free(comm, ierr)
  call MPI_Finalize(ierr)
  if (nfailed > 0) stop 1

contains

  integer function val(src, dst, i, salt)
    integer, intent(in) :: src, dst, i, salt
    val = src * 10000 + dst * 100 + i + salt * 1000000
  end function val

  ! Send data and receive sentinels of round `salt`.
  subroutine fill(salt)
    integer, intent(in) :: salt
    do p = 0, nprocs - 1
      do i = 1, n
        sbuf(i, p) = val(rank, p, i, salt)
        gbuf(i, p) = -1
      end do
      do i = 1, sc(p)
        vs(sd(p) + i - 1) = val(rank, p, i, salt)
      end do
    end do
    do i = 1, n
      gbuf(i, rank) = val(rank, 0, i, salt) ! in place: the own block
    end do
    rbuf = -1
    vr = -9
    gv = -5
    do i = 1, gc(rank)
      gs(i) = val(rank, 0, i, salt)
    end do
  end subroutine fill

  logical function a2a_ok(salt)
    integer, intent(in) :: salt
    a2a_ok = .true.
    do p = 0, nprocs - 1
      do i = 1, n
        a2a_ok = a2a_ok .and. rbuf(i, p) == val(p, rank, i, salt)
      end do
    end do
  end function a2a_ok

  logical function agv_ok(salt)
    integer, intent(in) :: salt
    integer :: k
    agv_ok = .true.
    do k = 0, size(gv) - 1
      if (.not. any(gd <= k .and. k < gd + gc)) agv_ok = agv_ok .and. gv(k) == -5
    end do
    do p = 0, nprocs - 1
      do i = 1, gc(p)
        agv_ok = agv_ok .and. gv(gd(p) + i - 1) == val(p, 0, i, salt)
      end do
    end do
  end function agv_ok

  logical function a2av_ok(salt)
    integer, intent(in) :: salt
    integer :: k
    a2av_ok = .true.
    do p = 0, nprocs - 1
      do i = 1, rc(p)
        a2av_ok = a2av_ok .and. vr(rd(p) + i - 1) == val(p, rank, i, salt)
      end do
    end do
    do k = 0, total
      if (.not. any(rd <= k .and. k < rd + rc)) a2av_ok = a2av_ok .and. vr(k) == -9
    end do
  end function a2av_ok

  logical function results(salt)
    integer, intent(in) :: salt
    integer :: k
    results = a2a_ok(salt) .and. agv_ok(salt)
    do p = 0, nprocs - 1
      do i = 1, n
        results = results .and. gbuf(i, p) == val(p, 0, i, salt)
      end do
      do i = 1, rc(p)
        results = results .and. vr(rd(p) + i - 1) == val(p, rank, i, salt)
      end do
    end do
    do k = 0, total
      if (.not. any(rd <= k .and. k < rd + rc)) results = results .and. vr(k) == -9
    end do
  end function results

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

end program requests
