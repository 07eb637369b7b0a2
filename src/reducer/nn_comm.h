/*
 * nn_comm.h - the MPI side of data-parallel network training: the gather
 * and broadcast nn/sgd.h needs, over MPI_COMM_WORLD.
 */
#ifndef ROOKERY_NN_COMM_H
#define ROOKERY_NN_COMM_H
#include "comm.h"
#include "nn/sgd.h"

/* The trainer's collectives for this process's ranks (c must outlive it). */
NnTrainComm nn_train_comm_mpi(const Comm *c);

#endif
