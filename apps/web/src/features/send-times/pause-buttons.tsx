import { pausableBroadcastStatuses, sendTimeMessages, type Broadcast } from '@herald/contracts';
import { Button } from '@mantine/core';
import { IconPlayerPause, IconPlayerPlay } from '@tabler/icons-react';
import { notifyError, notifySuccess } from '../../lib/notify.ts';
import { usePauseBroadcast } from './send-times.api.ts';

/** Pause or resume a sending broadcast: pausing holds what is not yet on its way; resuming sends the rest. */
export function PauseButton({ broadcast }: { broadcast: Broadcast }) {
  const pause = usePauseBroadcast('pause');
  const resume = usePauseBroadcast('resume');
  if (!pausableBroadcastStatuses.includes(broadcast.status)) return null;
  const paused = broadcast.pausedAt !== null;
  const action = paused ? resume : pause;
  return (
    <Button
      variant={paused ? 'filled' : 'default'}
      leftSection={paused ? <IconPlayerPlay size={16} /> : <IconPlayerPause size={16} />}
      loading={action.isPending}
      onClick={() =>
        action.mutate(broadcast.id, {
          onSuccess: (data) => notifySuccess(data.message),
          onError: (error) =>
            notifyError(error, paused ? sendTimeMessages.resumeError : sendTimeMessages.pauseError),
        })
      }
    >
      {paused ? 'Resume sending' : 'Pause'}
    </Button>
  );
}
