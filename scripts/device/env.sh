# Sourced (bash): the environment that runs the Open MPI carried in .devkit/
# (scripts/device/make-kit.sh) from wherever that folder is, on a machine
# without Debian's Open MPI. Relocation through OPAL_PREFIX (Open MPI) and
# PMIX_INSTALL_PREFIX (PMIx, for its plugins); the kit's generic libraries
# (deps/) are used only where the machine has no library of that name, or
# all of them with XCHG_KIT_ALL_DEPS=1 (to show here that the kit needs
# nothing of this machine's). Sets XCHG_KIT_LIB: the library path that every
# program of the kit needs (exported as LD_LIBRARY_PATH too).
#   XCHG_KIT=path/to/.devkit (default: .devkit of the repository)
xchg_kit=${XCHG_KIT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.devkit}
xchg_kit=$(cd "$xchg_kit" && pwd) || return 1
export XCHG_KIT_DIR=$xchg_kit
xchg_kit_root=$xchg_kit/root
xchg_kit_libdir=$xchg_kit_root/usr/lib/x86_64-linux-gnu
export OPAL_PREFIX=$xchg_kit_root/usr
# the folders Open MPI was configured with outside its prefix
export OPAL_SYSCONFDIR=$xchg_kit_root/etc/openmpi
export OPAL_LIBDIR=$xchg_kit_libdir/openmpi/lib
export OPAL_INCLUDEDIR=$xchg_kit_libdir/openmpi/include
export OPAL_PKGDATADIR=$xchg_kit_root/usr/share/openmpi
# PMIx: its folders, and where its plugins are (Debian's pmix-mca-params.conf
# names the absolute /usr/lib path)
export PMIX_PREFIX=$xchg_kit_libdir/pmix2
export PMIX_LIBDIR=$PMIX_PREFIX/lib PMIX_PKGLIBDIR=$PMIX_PREFIX/lib/pmix
export PMIX_DATADIR=$PMIX_PREFIX/share PMIX_DATAROOTDIR=$PMIX_PREFIX/share PMIX_PKGDATADIR=$PMIX_PREFIX/share/pmix
export PMIX_SYSCONFDIR=$PMIX_PREFIX/share
export PMIX_MCA_mca_base_component_path=$PMIX_PREFIX/lib/pmix
# the machine's own generic libraries first: link to a carried one only
# where the machine has none of that name
xchg_kit_deps=${TMPDIR:-/tmp}/xchg-kit-deps.$$
rm -rf "$xchg_kit_deps"
mkdir -p "$xchg_kit_deps"
xchg_cache=$(ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null)
for xchg_so in "$xchg_kit"/deps/lib*.so.*; do
    [ -e "$xchg_so" ] || continue
    xchg_name=$(basename "$xchg_so")
    # by soname (libz.so.1); the files they point to stay in deps/
    [[ $xchg_name =~ \.so\.[0-9]+$ ]] || continue
    if [ "${XCHG_KIT_ALL_DEPS:-0}" = 1 ] ||
       ! grep -q "^[[:space:]]*$xchg_name " <<<"$xchg_cache"; then
        ln -sf "$xchg_so" "$xchg_kit_deps/$xchg_name"
    fi
done
export XCHG_KIT_LIB=$xchg_kit_libdir/openmpi/lib:$xchg_kit_libdir:$xchg_kit_libdir/pmix2/lib:$xchg_kit_deps
export LD_LIBRARY_PATH=$XCHG_KIT_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$xchg_kit_root/usr/bin:$PATH
# root on the lent machine; shared memory within one machine only
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader OMPI_MCA_mca_base_component_show_load_errors=0
# one machine: no ssh/rsh needed (without either, Open MPI's default
# launcher refuses to start even a singleton such as xchg-info)
export OMPI_MCA_plm=isolated
unset xchg_so xchg_name xchg_cache
